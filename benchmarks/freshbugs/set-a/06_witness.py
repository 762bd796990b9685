# dequant cache counters under the pin policy with a budget below the working set
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import load_model
from vtengine import tokenizer

m = load_model("vt-tiny")
for mb in (4, 8):
    e = Engine(m, Knobs(dequant_cache_mb=mb, dequant_cache_policy="pin"))
    g = e.generate(tokenizer.encode("pinned"), 5)
    print(mb, g.tokens, e.cache.counters())
