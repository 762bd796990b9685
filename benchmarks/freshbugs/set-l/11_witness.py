"""`vtengine score --ids` with zero-padded ids (as a column of fixed-width ids pasted from a log)."""
from _w import cli

for ids in ("256,72,105,33", "256,072,105,033"):
    r = cli("score", "--ids", ids)
    last = (r.stderr.strip().splitlines() or [""])[-1]
    print(f"score --ids {ids}: exit {r.returncode}: {last[:90]}")
