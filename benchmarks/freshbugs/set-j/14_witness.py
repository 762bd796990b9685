# VT_DEQUANT_CACHE_POLICY=pin from the environment (vt-tiny, 2 MiB): pin never evicts
import os

from vtengine import tokenizer
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import load_model

os.environ["VT_DEQUANT_CACHE_POLICY"] = "pin"
os.environ["VT_DEQUANT_CACHE_MB"] = "2"
knobs = Knobs.from_env()
eng = Engine(load_model("vt-tiny"), knobs)
eng.generate(tokenizer.encode("hello"), 4)
c = eng.cache.counters()
print(f"policy {knobs.dequant_cache_policy}: hits {c.hits} misses {c.misses} evictions {c.evictions}")
