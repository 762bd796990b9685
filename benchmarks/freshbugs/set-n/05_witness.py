"""numerics.sum_sequential along the last axis given as -1 and as ndim-1 (the engine's multi-row RMSNorm
passes -1): both must be the strictly sequential sum; plus the f32 prefill logits that use it."""
import numpy as np
from _w import engine, h, small_model

from vtengine.numerics import sum_sequential

rng = np.random.default_rng(3)
a = (rng.standard_normal((4, 1000)) * np.array([1e4, 1, 1e-3, 7])[:, None]).astype(np.float32)
seq = a[:, 0].copy()
for j in range(1, a.shape[1]):
    seq = seq + a[:, j]
print("axis=1 sequential:", np.array_equal(sum_sequential(a, 1), seq + np.float32(0)))
eng = engine(small_model(d_model=256, n_heads=8), act_dtype="f32")
print("axis=-1 sequential:", np.array_equal(sum_sequential(a, -1), seq + np.float32(0)),
      "| prefill logits", h(eng.forward_logits(list(range(1, 30)))))
