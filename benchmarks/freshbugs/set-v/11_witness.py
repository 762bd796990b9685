"""11: `vtengine --version`, and `vtengine score --ids ...` without --version: exit codes, stdout, and whether
score printed its summary line (stderr)."""
from _w import cli

version = cli("--version")
score = cli("score", "--ids", "256,72,105,33")
print("--version: exit", version.returncode, "stdout", repr(version.stdout.strip()))
print("score --ids: exit", score.returncode, "stdout", repr(score.stdout.strip()),
      "| summary printed:", "positions predict the next token" in score.stderr)
