"""The FMA attention arm (not bit-exact with the default, docs/engine.md) runs its own body on every
path: under VT_CPU_PAGED_ATTN_SCALAR_FMA (f32 activations) greedy decode (one query row per step)
and teacher-forced scoring (several rows at once) both give other logits bits than the default."""
import numpy as np

from _w import engine, small_model

model = small_model(d_model=64, n_heads=2, n_kv_heads=1, d_ff=96)
ids = [(11 * i + 5) % 64 for i in range(40)]
default = engine(model, act_dtype="f32").forward_logits(ids)
fma = engine(model, act_dtype="f32", paged_attn_scalar_fma=True).forward_logits(ids)
g_default = engine(model, act_dtype="f32").generate(ids[:8], 12).logits
g_fma = engine(model, act_dtype="f32", paged_attn_scalar_fma=True).generate(ids[:8], 12).logits
print(f"decode: FMA differs from default {not np.array_equal(g_default, g_fma)}")
print(f"score (several rows): FMA differs from default {not np.array_equal(default, fma)}")
