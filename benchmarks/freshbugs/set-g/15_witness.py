import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
import _w
from vtengine.attention import paged_attention, paged_attention_rows
# rows of one sequence given out of position order (e.g. verification rows re-sorted by a caller)
rng = np.random.Generator(np.random.PCG64(5))
n_kv, hd, bs, blocks, heads = 2, 8, 4, 4, 4
k_cache = rng.standard_normal((n_kv, hd, blocks, bs)).astype(np.float32)
v_cache = rng.standard_normal((n_kv, blocks, bs, hd)).astype(np.float32)
table = np.array([2, 0, 3, 1])
q = rng.standard_normal((2, heads, hd)).astype(np.float32)
ctxs = np.array([13, 6])
scale = np.float32(1 / np.sqrt(hd))
def run():
    rows = paged_attention_rows(q, k_cache, v_cache, table, ctxs, scale)
    single = np.stack([paged_attention(q[i], k_cache, v_cache, table, int(c), scale) for i, c in enumerate(ctxs)])
    return f"rows==single {bool(np.array_equal(rows, single))} {_w.h(rows)}"
print(_w.outcome(run))
