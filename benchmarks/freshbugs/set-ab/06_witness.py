"""06 cli.py: `vtengine generate --help` is plain click help (no rich panels, no markup)."""
from _w import cli

r = cli("generate", "--help", env={"COLUMNS": "80"})
boxed = any(ch in r.stdout for ch in "╭│╰")
print(r.stdout.splitlines()[0] if r.stdout else "")
print(f"generate --help exit {r.returncode}, rich panels in the help: {boxed}")
