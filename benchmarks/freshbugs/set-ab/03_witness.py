"""03 engine.py: the RoPE tables are cos/sin of p * inv_freq computed in float64 and rounded once to
float32 (a long-context model: 131072 positions, head_dim 128, as Llama 3 checkpoints have)."""
import numpy as np
from _w import engine, small_model

ctx = 131072
model = small_model(max_context=ctx, d_model=128, n_heads=1, n_kv_heads=1, n_layers=1)
e = engine(model, act_dtype="f32", max_tokens=64)
hd = model.config.head_dim
inv_freq = 1.0 / (model.config.rope_theta ** (np.arange(0, hd, 2, dtype=np.float64) / hd))
angles = np.arange(ctx, dtype=np.float64)[:, None] * inv_freq[None, :]
cos, sin = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)
bad = np.nonzero((e.rope_cos != np.concatenate([cos, cos], 1)) | (e.rope_sin != np.concatenate([-sin, sin], 1)))[0]
print(f"rope table rows differing from the documented formula: {len(np.unique(bad))} (first position {bad.min() if len(bad) else None})")
