# Dequant cache under a budget smaller than the working set: LRU counters.
import sys; sys.path.insert(0, __file__.rsplit("/", 1)[0]); import _w
from vtengine.engine import Engine
from vtengine.knobs import Knobs
m = _w.small(d_model=256, n_heads=4, n_kv_heads=2, d_ff=512, n_layers=2)
e = Engine(m, Knobs(dequant_cache_mb=2))
e.generate([1, 2, 3, 4], 4)
print("counters:", e.cache.counters())
