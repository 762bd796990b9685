"""Profiler table under profile=True: 'share' is the share of the phase's profiled time, so each phase's
shares add up to 1."""
from collections import defaultdict

from _w import engine, small_model

e = engine(small_model(), act_dtype="f32", profile=True)
e.generate([1, 2, 3, 4, 5], 4)
sums = defaultdict(float)
for row in e.prof.table():
    sums[row["phase"]] += row["share"]
print("phases:", sorted(sums), "| every phase's shares sum to 1:", all(abs(s - 1.0) < 1e-9 for s in sums.values()))
