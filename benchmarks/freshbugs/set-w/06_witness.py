"""06: VT_CPU_THREADS=1 (the default) is single-threaded: the engine starts no worker thread, so an
engine a caller keeps (and never closes, as most callers do) costs no thread. Counts threads of this
process before and after single-threaded engines run (the engines stay alive)."""
import threading

import _w

model = _w.small_model()
before = threading.active_count()
engines = []
for _ in range(3):
    e = _w.engine(model, cpu_threads=1)
    e.generate([1, 2, 3, 4, 5], 3)
    e.score([1, 2, 3, 4, 5, 6])
    engines.append(e)
after = threading.active_count()
two = _w.engine(model, cpu_threads=2)
same = two.generate([1, 2, 3, 4, 5], 3).tokens == engines[0].generate([1, 2, 3, 4, 5], 3).tokens
print("threads 1 vs 2 tokens equal:", same)
print("extra threads held by 3 single-threaded engines:", after - before)
