"""12: several-rows paged attention (prefill / recompute / verification) against one paged_attention call per
row, which the API documents as bit-identical, for rows r = 0..3 over keys [0, r]: once with ordinary scores,
once with large-magnitude activations whose q.k scores are about -2e10 (all finite)."""
import numpy as np

from vtengine.attention import paged_attention, paged_attention_rows

rng = np.random.Generator(np.random.PCG64(5))
hd, ctxs, table, scale = 4, np.array([1, 2, 3, 4]), np.array([0]), np.float32(0.5)


def check(q_mag, k_mag):
    q = (rng.random((4, 1, hd)) + 0.5).astype(np.float32) * np.float32(q_mag)
    k_cache = ((rng.random((1, hd, 1, 4)) + 0.5) * k_mag).astype(np.float32)
    v_cache = rng.random((1, 1, 4, hd)).astype(np.float32)
    rows = paged_attention_rows(q, k_cache, v_cache, table, ctxs, scale)
    one = np.stack([paged_attention(q[r], k_cache, v_cache, table, int(ctxs[r]), scale) for r in range(4)])
    return bool(np.array_equal(rows, one)), bool(np.isfinite(rows).all())


print("ordinary scores: rows == per-row, finite:", check(1.0, 1.0))
print("scores about -2e10: rows == per-row, finite:", check(1e5, -1e5))
