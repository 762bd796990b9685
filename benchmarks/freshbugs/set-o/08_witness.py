"""`vtengine --version` ends promptly (well under the 5 s exit-watchdog grace)."""
import time

from _w import cli

t0 = time.monotonic()
r = cli("--version")
elapsed = time.monotonic() - t0
print("rc", r.returncode, "ended within 4 s:", elapsed < 4.0)
