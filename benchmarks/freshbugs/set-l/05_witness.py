"""paged_attention_rows under the scalar_fma arm must be bit-identical to one paged_attention call
per row (documented); f32 q over an f32 paged cache, contexts 1..20 as in a prefill."""
import numpy as np

from vtengine.attention import paged_attention, paged_attention_rows

rng = np.random.Generator(np.random.PCG64(11))
n_kv, hd, bs, nb, heads, T = 2, 16, 4, 8, 4, 20
k_cache = rng.standard_normal((n_kv, hd, nb, bs)).astype(np.float32)
v_cache = rng.standard_normal((n_kv, nb, bs, hd)).astype(np.float32)
table = np.array([5, 2, 7, 0, 3, 1, 6, 4], dtype=np.intp)
q = (rng.standard_normal((T, heads, hd)) * 2).astype(np.float32)
ctxs = np.arange(1, T + 1)
scale = np.float32(1 / np.sqrt(hd))
for arm in ("default", "scalar_fma"):
    rows = paged_attention_rows(q, k_cache, v_cache, table, ctxs, scale, arm, "f32")
    single = np.stack([paged_attention(q[r], k_cache, v_cache, table, int(ctxs[r]), scale, arm, "f32") for r in range(T)])
    same = int(sum(np.array_equal(rows[r], single[r]) for r in range(T)))
    print(f"{arm}: rows bit-identical to single-row calls: {same}/{T}")
