"""04: the public paged_attention kernel given a block table that names a block the pool does not have (a
caller's bookkeeping error): refused, or silently computed over another block?"""
import numpy as np

from _w import outcome
from vtengine.attention import paged_attention

rng = np.random.default_rng(4)
n_kv, hd, blocks, bs, heads = 2, 8, 4, 4, 4
k_cache = rng.standard_normal((n_kv, hd, blocks, bs)).astype(np.float32)
v_cache = rng.standard_normal((n_kv, blocks, bs, hd)).astype(np.float32)
q = rng.standard_normal((heads, hd)).astype(np.float32)
scale = np.float32(1 / np.sqrt(hd))
good = np.array([2, 0], dtype=np.intp)
bad = np.array([2, 7], dtype=np.intp)  # block 7 of a 4-block pool
print("valid table:", outcome(lambda: paged_attention(q, k_cache, v_cache, good, 7, scale).shape))
print("table naming block 7 of 4:", outcome(lambda: paged_attention(q, k_cache, v_cache, bad, 7, scale).shape))
