"""04: VT_PROFILE's stage profiler after one greedy generation: rows of the table, calls per phase,
tokens per phase."""
from _w import engine, small_model

eng = engine(small_model(), profile=True)
eng.generate([1, 2, 3, 4, 5], 4)
rows = eng.prof.table()
calls = {}
for row in rows:
    calls[row["phase"]] = calls.get(row["phase"], 0) + row["calls"]
print("profile rows:", len(rows), "calls per phase:", dict(sorted(calls.items())),
      "tokens:", dict(sorted(eng.prof.tokens.items())))
