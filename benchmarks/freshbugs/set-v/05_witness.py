"""05: the VT_PROFILE stage table (bench prints it, and its JSON carries it) after one generate: rows grouped by
phase, and within each phase the most expensive stage first (seconds non-increasing)?"""
from _w import engine, small_model

eng = engine(small_model(), profile=True)
eng.generate([1, 2, 3, 4, 5, 6], 8)
rows = eng.prof.table()
phases = [r["phase"] for r in rows]
grouped = phases == sorted(phases)
ordered = {}
for phase in sorted(set(phases)):
    secs = [r["seconds"] for r in rows if r["phase"] == phase]
    ordered[phase] = all(a >= b for a, b in zip(secs, secs[1:]))
print("rows", len(rows), "grouped by phase:", grouped)
print("most expensive stage first in each phase:", ordered)
