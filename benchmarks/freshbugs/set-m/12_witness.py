"""vtengine score --ids with a space after each comma (as people type lists)."""
from _w import cli

r = cli("score", "--ids", "256, 72, 105, 33")
err = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
print(f"score --ids '256, 72, 105, 33': exit {r.returncode}: {err[:100]}")
