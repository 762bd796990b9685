# dequant cache counters under a budget smaller than vt-tiny's working set (matrices of several sizes)
from _w import tiny
from vtengine.engine import Engine
from vtengine.knobs import Knobs
e = Engine(tiny(), Knobs(dequant_cache_mb=3))
e.generate([256, *b"hello"], 6)
c = e.cache.counters()
print(f"hits={c.hits} misses={c.misses} evictions={c.evictions} resident_bytes={c.resident_bytes}")
