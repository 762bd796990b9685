# dequant cache counters under a 3 MB LRU budget (smaller than the working set)
from pathlib import Path
from vtengine.model import load_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs

model = load_model("vt-tiny", cache_dir=Path("/tmp/freshbugs-b-cache"))
engine = Engine(model, Knobs(dequant_cache_mb=3, dequant_cache_policy="lru"))
engine.generate([256, 1, 2, 3], 3)
print(engine.cache.counters())
