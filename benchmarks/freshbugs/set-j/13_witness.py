# a 1 MiB dequant budget on a model whose embedding and LM head (2 MiB each) can never fit: those are
# served uncached, and the small layer matrices that do fit should stay cached across decode steps
from _w import small_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs

eng = Engine(small_model(vocab_size=8192), Knobs(dequant_cache_mb=1, act_dtype="f32"))
eng.generate([1, 2, 3, 4], 4)
c = eng.cache.counters()
print(f"hits {c.hits} misses {c.misses} evictions {c.evictions} resident {c.resident_bytes}")
