"""01: an Engine whose construction fails (here: Engine(model) with knobs=None reads a bad VT_CPU_THREADS
and raises KnobError) must fail cleanly: the KnobError reaches the caller and nothing else happens. No
"Exception ignored in ..." noise may follow when the half-built object is collected, and engines built
and dropped normally must not report anything either."""
import gc
import sys

import _w
from vtengine.engine import Engine
from vtengine.knobs import KnobError, Knobs, scoped_env

unraisable: list[str] = []
sys.unraisablehook = lambda u: unraisable.append(f"{type(u.exc_value).__name__}: {u.exc_value}")

model = _w.small_model()
with scoped_env({"VT_CPU_THREADS": "two"}):
    try:
        Engine(model)
        print("construction: accepted")
    except KnobError as error:
        print("construction:", type(error).__name__, str(error)[:60])
gc.collect()
failed = list(unraisable)
print("unraisable after the failed construction:", failed)
for threads in (1, 2):
    e = _w.engine(model, cpu_threads=threads)
    e.generate([1, 2, 3], 2)
    del e
gc.collect()
print("unraisable after normal engines:", unraisable[len(failed):])
print("summary: unraisable exceptions", len(unraisable), [u.split(":")[0] for u in unraisable])
