"""12: the CLI's stdout when it is a pipe (as under subprocess, `| jq`, a CI log), in an ordinary
environment (PYTHONUNBUFFERED unset): `--version` and `arms --json -`."""
import json

from _w import cli

plain = ("PYTHONUNBUFFERED",)
v = cli("--version", drop=plain)
a = cli("arms", "--json", "-", drop=plain)
try:
    arms = f"json ok, {len(json.loads(a.stdout)['arms'])} arms"
except ValueError:
    arms = f"not JSON ({len(a.stdout)} chars)"
print(f"--version: exit {v.returncode} stdout {v.stdout.strip()!r} | arms --json -: exit {a.returncode} {arms}")
