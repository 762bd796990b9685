"""09: the FMA arm pads head_dim to a multiple of 4 with zeros (exact): head_dim 33 works like any other."""
import hashlib

import numpy as np

from vtengine.attention import paged_attention

rng = np.random.Generator(np.random.PCG64(9))
hd, n_kv, bs, ctx = 33, 2, 4, 10
q = (rng.random((4, hd)) * 2 - 1).astype(np.float32)
k_cache = (rng.random((n_kv, hd, 4, bs)) * 2 - 1).astype(np.float32)
v_cache = (rng.random((n_kv, 4, bs, hd)) * 2 - 1).astype(np.float32)
table = np.array([2, 0, 3], np.intp)
scale = np.float32(1 / np.sqrt(hd))
try:
    out = paged_attention(q, k_cache, v_cache, table, ctx, scale, arm="scalar_fma")
    print("fma hd=33:", out.shape, hashlib.sha256(out.astype("<f4").tobytes()).hexdigest()[:16])
except Exception as error:
    print("fma hd=33:", type(error).__name__)
