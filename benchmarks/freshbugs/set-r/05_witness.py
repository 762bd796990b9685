"""VT_DEQUANT_CACHE_MB=0 is documented as "dequantize on every use": no hits, nothing resident.
The counters of one vt-tiny generate under that knob (read from the environment)."""
import os

os.environ["VT_DEQUANT_CACHE_MB"] = "0"

from vtengine.engine import Engine  # noqa: E402
from vtengine.model import load_model  # noqa: E402

eng = Engine(load_model("vt-tiny"))
gen = eng.generate([256] + list(b"cache"), 4)
c = eng.cache.counters()
print("tokens", gen.tokens)
print(f"VT_DEQUANT_CACHE_MB=0: hits {c.hits} misses {c.misses} evictions {c.evictions} resident {c.resident_bytes}")
