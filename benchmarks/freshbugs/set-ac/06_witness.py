"""06: an LRU DequantCache whose budget holds one matrix: the second matrix evicts the first.
Bounded: a hang is reported after 10 s."""
import numpy as np

from _w import run_bounded
from vtengine.dequant import DequantCache


def run():
    c = DequantCache(400, "lru")  # room for one 320-byte matrix
    c.get("a", lambda: np.zeros(80, np.float32))
    c.get("b", lambda: np.ones(80, np.float32))
    return c.counters()


print(run_bounded(run, 10))
