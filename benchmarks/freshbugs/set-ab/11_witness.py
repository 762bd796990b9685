"""11 profiler.py: Profiler.table() has one row per (phase, stage) that was timed, nothing else."""
from vtengine.profiler import Profiler, clock

p = Profiler()
p.add("linear", clock())
p.add("attention", clock())
rows = p.table()
print(f"rows after timing 2 stages: {len(rows)} {[(r['stage'], r['calls']) for r in rows]}")
