"""`vtengine --version` (no command word at all) prints the version and exits 0."""
from _w import cli

run = cli("--version")
print("stderr lines:", len(run.stderr.splitlines()))
print(f"vtengine --version: exit {run.returncode}, stdout {run.stdout.strip()!r}")
