"""08: vt-tiny greedy generation under dequant cache budgets of 0, 64 and 1 MiB (vt-tiny's fused gate/up
matrix is 1.5 MiB, so at 1 MiB it can never be cached): the cache counters, or what goes wrong."""
import warnings

from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import load_model

from _w import outcome

warnings.simplefilter("ignore")
model = load_model("vt-tiny")


def run(mb):
    eng = Engine(model, Knobs(dequant_cache_mb=mb))
    g = eng.generate([256, 104, 105], 3)
    c = eng.cache.counters()
    return f"{g.tokens} hits {c.hits} misses {c.misses} evictions {c.evictions}"


for mb in (0, 64, 1):
    print(f"budget {mb} MiB:", outcome(lambda: run(mb)))
