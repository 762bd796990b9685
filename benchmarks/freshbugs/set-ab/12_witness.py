"""12 cli.py: a --json PATH that cannot be written (a full device) is a usage error, exit 2."""
from _w import cli, last_line

r = cli("score", "--ids", "256,72,105,108", "--json", "/dev/full")
print(f"score --json /dev/full: exit {r.returncode}; last stderr line: {last_line(r.stderr)[:70]}")
