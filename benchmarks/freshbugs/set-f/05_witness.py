"""paged_attention with bf16 q over an f32 KV cache under the bfdot arm (documented: falls back to default)."""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w

import numpy as np
from vtengine.attention import paged_attention
from vtengine.numerics import round_bf16
rng = np.random.Generator(np.random.PCG64(5))
n_kv, hd, nb, bs, heads = 2, 31, 3, 8, 4
k = rng.standard_normal((n_kv, hd, nb, bs)).astype(np.float32)
v = rng.standard_normal((n_kv, nb, bs, hd)).astype(np.float32)
q = round_bf16(rng.standard_normal((heads, hd)).astype(np.float32))
out = paged_attention(q, k, v, np.array([2, 0, 1]), 20, np.float32(0.17), arm="bfdot", q_dtype="bf16")
ref = paged_attention(q, k, v, np.array([2, 0, 1]), 20, np.float32(0.17), arm="default", q_dtype="bf16")
print("bfdot == default:", bool(np.array_equal(out, ref)), _w.h(out))
