"""15: the profiler is off by default, and then the engine holds None (profiler.py): the usual
`if engine.prof is not None:` guard must keep a caller away from it."""
from _w import engine, outcome, small_model

e = engine(small_model())
e.generate([1, 2, 3], 2)
print(outcome(lambda: e.prof.table() if e.prof is not None else "profiler off"))
