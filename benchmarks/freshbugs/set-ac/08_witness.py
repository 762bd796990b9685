"""08: the stage table of a profile in which two stages took exactly the same time (as happens on
a coarse clock: two stages of 0.0 s, or equal ticks)."""
from _w import outcome
from vtengine.profiler import Profiler

p = Profiler()
p.phase = "decode"
for stage, seconds in (("linear", 0.25), ("rope", 0.125), ("norms", 0.125)):
    p.seconds[("decode", stage)] += seconds
    p.calls[("decode", stage)] += 1
print(outcome(lambda: [(r["stage"], r["share"]) for r in p.table()]))
