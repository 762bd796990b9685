"""06: the float32 reference path (Knobs(act_dtype="f32")) on a small float32 model: its score logits against an
independent float64 forward (within 1e-4), and whether they differ from the default bf16 engine's."""
import numpy as np

from _w import engine, reference_logits, small_tensors
from vtengine.model import Model

cfg, tensors = small_tensors()
model = Model(cfg, tensors)
ids = [1, 5, 9, 2, 33, 17, 4, 60, 8, 3]
f32 = engine(model, act_dtype="f32").score(ids).logits
bf16 = engine(model, act_dtype="bf16").score(ids).logits
ref = reference_logits(cfg, tensors, ids)
print("f32 logits dtype", f32.dtype, "shape", f32.shape)
print("f32 within 1e-4 of float64 reference:", bool(np.abs(f32 - ref).max() < 1e-4),
      "| differs from bf16 engine:", not np.array_equal(f32, bf16))
