# paged_attention_rows is causal for every value: a NaN in V at a later position must not reach earlier rows
import numpy as np
from vtengine.attention import paged_attention_rows
rng = np.random.Generator(np.random.PCG64(5))
n_kv, hd, nb, bs, heads = 2, 8, 4, 4, 4
k = rng.standard_normal((n_kv, hd, nb, bs)).astype(np.float32)
v = rng.standard_normal((n_kv, nb, bs, hd)).astype(np.float32)
v[:, 1, 0, :] = np.nan  # position 4 (block 1, slot 0)
table = np.array([0, 1, 2, 3])
q = rng.standard_normal((3, heads, hd)).astype(np.float32)
out = paged_attention_rows(q, k, v, table, np.array([3, 4, 6]), np.float32(0.35))
print("NaN per row (ctx 3, 4, 6):", [int(np.isnan(out[r]).sum()) for r in range(3)])
