import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w
from vtengine import tokenizer
e = _w.engine(dequant_cache_policy="pin", dequant_cache_mb=2)
e.generate(tokenizer.encode("pinned"), 4)
print(e.cache.counters())
