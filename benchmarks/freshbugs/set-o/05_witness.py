"""`vtengine bench --json -` reports the knobs the user set (VT_PROFILE=1 here)."""
import json

from _w import cli

r = cli("bench", "--prompt-tokens", "2", "--tokens", "2", "--runs", "1", "--json", "-", env={"VT_PROFILE": "1"})
print("rc", r.returncode, "VT_PROFILE in JSON:", json.loads(r.stdout)["knobs"]["VT_PROFILE"] if r.returncode == 0 else r.stderr[-200:])
