"""05: VT_DEQUANT_CACHE_MB is a budget in MiB (docs/ENVIRONMENT.md): vt-tiny's 12.5 MiB working set fits 13."""
from vtengine import tokenizer
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import load_model

engine = Engine(load_model("vt-tiny"), Knobs(dequant_cache_mb=13))
engine.generate(tokenizer.encode("hello"), 4)
c = engine.cache.counters()
print(f"budget {engine.cache.budget_bytes} bytes: hits {c.hits} misses {c.misses} evictions {c.evictions}")
