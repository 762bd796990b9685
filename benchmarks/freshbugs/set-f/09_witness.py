"""LRU dequant cache with room for two matrices; access a b a c a."""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w

import numpy as np
from vtengine.dequant import DequantCache
arr = {k: np.full((4, 4), i, np.float32) for i, k in enumerate("abc")}
c = DequantCache(2 * arr["a"].nbytes, "lru")
for key in "abaca":
    c.get(key, lambda key=key: arr[key])
print(c.counters())
