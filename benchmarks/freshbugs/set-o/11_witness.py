"""Attention over a single cached position still propagates a NaN score (inf q against a 0 key)."""
import numpy as np

from vtengine.attention import paged_attention

n_kv, hd, bs = 1, 4, 4
k_cache = np.zeros((n_kv, hd, 1, bs), np.float32)
v_cache = np.zeros((n_kv, 1, bs, hd), np.float32)
k_cache[0, :, 0, 0] = [0.0, 1.0, 0.0, 0.0]
v_cache[0, 0, 0, :] = [1.0, 2.0, -0.0, 3.0]
q = np.array([[np.inf, 0.5, 0.0, 0.0], [0.0, 0.5, 0.0, 0.0]], np.float32)  # inf*0 = NaN in head 0's score
out = paged_attention(q, k_cache, v_cache, np.array([0]), 1, np.float32(0.5))
print("head0", out[0].tolist(), "head1 signbit", np.signbit(out[1]).tolist())
