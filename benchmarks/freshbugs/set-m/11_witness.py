"""paged_attention with q given as a real bfloat16 array (q_dtype left to be inferred from q.dtype)
over a bf16 KV cache, BFDOT arm: must run the same body as q_dtype='bf16' named explicitly."""
import numpy as np

from _w import outcome

from vtengine.attention import paged_attention
from vtengine.numerics import BF16

rng = np.random.default_rng(3)
k_cache = rng.standard_normal((1, 64, 3, 4)).astype(np.float32).astype(BF16)
v_cache = rng.standard_normal((1, 3, 4, 64)).astype(np.float32).astype(BF16)
table = np.array([2, 0, 1])
q = rng.standard_normal((4, 64)).astype(np.float32).astype(BF16)
scale = np.float32(1 / np.sqrt(64))
same = []
for ctx in range(1, 12):
    implicit = paged_attention(q, k_cache, v_cache, table, ctx, scale, "bfdot")
    explicit = paged_attention(q.astype(np.float32), k_cache, v_cache, table, ctx, scale, "bfdot", "bf16")
    same.append(bool((implicit == explicit).all()))
f16 = outcome(lambda: paged_attention(q.astype(np.float16), k_cache, v_cache, table, 5, scale).shape)
print(f"bf16 q inferred = explicit bf16 (bfdot): {sum(same)}/{len(same)} | float16 q: {f16}")
