"""Loading keeps each tensor's own dtype: a checkpoint with bfloat16 matrices and float32 norms
(norm values that bfloat16 cannot hold) loads back with float32 norms, as the same model."""
import tempfile
from pathlib import Path

import ml_dtypes
import numpy as np

from _w import small_tensors

from vtengine.checkpoint import load_checkpoint, save_checkpoint
from vtengine.model import Model

cfg, tensors = small_tensors()
mixed = {}
for name, t in tensors.items():
    if t.ndim == 2:
        mixed[name] = t.astype(ml_dtypes.bfloat16)
    else:
        mixed[name] = (t + np.float32(1e-3)).astype(np.float32)  # not bf16-representable
with tempfile.TemporaryDirectory() as tmp:
    save_checkpoint(Path(tmp) / "mixed", cfg, mixed)
    loaded_cfg, loaded = load_checkpoint(Path(tmp) / "mixed")
norm = loaded["model.norm.weight"]
print("norm dtype:", norm.dtype, "| matrix dtype:", loaded["model.layers.0.mlp.up_proj.weight"].dtype)
print(f"norm dtype after load {norm.dtype}; same model as saved: "
      f"{Model(loaded_cfg, loaded).digest() == Model(cfg, mixed).digest()}")
