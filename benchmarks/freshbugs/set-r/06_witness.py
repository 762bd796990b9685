"""The BFDOT arm on bf16 q and bf16 KV (its one supported combination) must run the pair-dot body.
Inputs built so the two orders differ (docs/engine.md): q = [1, 1, 1, 1], key A = [2^24, 1, 1, 1]
(sequential: 2^24, pairs: 2^24 + 2), key B = [2^24, 2, 0, 0] (2^24 + 2 either way)."""
import numpy as np

from vtengine.attention import paged_attention
from vtengine.numerics import BF16

q = np.array([[1, 1, 1, 1]], np.float32).astype(BF16)
k_cache = np.zeros((1, 4, 1, 2), BF16)
k_cache[0, :, 0, 0] = [2.0**24, 1, 1, 1]
k_cache[0, :, 0, 1] = [2.0**24, 2, 0, 0]
v_cache = np.zeros((1, 1, 2, 4), BF16)
v_cache[0, 0, 0] = [1, 0, 0, 0]
v_cache[0, 0, 1] = [0, 1, 0, 0]
table = np.array([0])
scale = np.float32(0.5)
default = paged_attention(q, k_cache, v_cache, table, 2, scale, "default")
bfdot = paged_attention(q, k_cache, v_cache, table, 2, scale, "bfdot")
print("default", default.tolist(), "bfdot", bfdot.tolist())
print("bfdot on bf16 x bf16 differs from default:", not np.array_equal(default, bfdot), bfdot.round(4).tolist())
