"""13: the public paged_attention kernel over a bf16 KV cache, with q given as float32 and as a real
bfloat16 array (q in {f32, bf16} is the documented dispatch; widening bf16 to float32 is exact)."""
import ml_dtypes
import numpy as np

from _w import outcome
from vtengine.attention import paged_attention

rng = np.random.default_rng(5)
n_kv, hd, heads, bs, nb, ctx = 2, 16, 4, 4, 4, 13
k_cache = rng.standard_normal((n_kv, hd, nb, bs)).astype(ml_dtypes.bfloat16)
v_cache = rng.standard_normal((n_kv, nb, bs, hd)).astype(ml_dtypes.bfloat16)
table = np.array([2, 0, 3, 1])
scale = np.float32(1 / 4)
q = rng.standard_normal((heads, hd)).astype(ml_dtypes.bfloat16)
widened = paged_attention(q.astype(np.float32), k_cache, v_cache, table, ctx, scale, q_dtype="bf16")
print("q float32 holding bf16 values (q_dtype='bf16'):", widened.shape)
print("q bfloat16 array, equal to the float32 call:",
      outcome(lambda: np.array_equal(paged_attention(q, k_cache, v_cache, table, ctx, scale), widened)))
