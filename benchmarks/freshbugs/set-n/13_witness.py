"""DequantCache under the pin policy: first-come entries are kept while they fit the byte budget
together; later ones are served uncached (never stored, nothing evicted)."""
import numpy as np

from vtengine.dequant import DequantCache

cache = DequantCache(1000, "pin")
for key in ("a", "b", "a", "b", "c"):
    cache.get(key, lambda: np.zeros(200, np.float32))  # 800 bytes each
print(cache.counters(), "| budget 1000")
