"""DequantCache byte accounting (resident_bytes is the bytes of the dequantized arrays held) and an
engine's counters after a short generation."""
import numpy as np
from _w import engine, small_model

from vtengine.dequant import DequantCache

cache = DequantCache(10_000, "lru")
cache.get("w", lambda: np.zeros((10, 100), np.float32))  # 4000 bytes
eng = engine(small_model())
eng.generate([1, 2, 3], 3)
print("direct:", cache.counters(), "| engine:", eng.cache.counters())
