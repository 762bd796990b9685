"""11: DequantCache knows two policies, lru and pin, and refuses any other name ("unknown dequant cache
policy"). Knobs built in code (Knobs(dequant_cache_policy=...)) do not go through the environment parser,
so the cache's own check is what stops a misspelt policy from silently running another one."""
import _w
from vtengine.dequant import DequantCache
from vtengine.engine import Engine
from vtengine.knobs import Knobs

print("DequantCache(1 MiB, 'fifo'):", _w.outcome(lambda: DequantCache(1 << 20, "fifo").policy))
model = _w.small_model()


def run(policy):
    e = Engine(model, Knobs(dequant_cache_policy=policy, dequant_cache_mb=0))
    e.generate([1, 2, 3], 2)
    c = e.cache.counters()
    return f"hits {c.hits} misses {c.misses}"


print("policy 'pin':", _w.outcome(lambda: run("pin")))
print("summary: policy 'Pin':", _w.outcome(lambda: run("Pin")))
