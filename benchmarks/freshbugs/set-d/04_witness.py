# VT_CPU_THREADS=3 with output widths not divisible by 3 (vocab 301, qkv 128).
import sys; sys.path.insert(0, __file__.rsplit("/", 1)[0]); import _w
import numpy as np
from vtengine.engine import Engine
from vtengine.knobs import Knobs
m = _w.small(vocab_size=301)
ids = [(11 * i + 5) % 256 for i in range(12)]
e = Engine(m, Knobs(cpu_threads=3))
a = e.score(ids).logits
e.close()
b = Engine(m, Knobs()).score(ids).logits
print("threads=3 logits equal threads=1:", bool(np.array_equal(a, b)))
