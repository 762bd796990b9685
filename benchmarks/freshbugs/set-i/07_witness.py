"""07: a checkpoint with bf16 matrices and float32 norms is a bfloat16 checkpoint (config.json torch_dtype)."""
import json
import tempfile
from pathlib import Path

import ml_dtypes

from _w import small_model
from vtengine.checkpoint import save_checkpoint

model = small_model()
tensors = {n: (t.astype(ml_dtypes.bfloat16) if t.ndim == 2 else t) for n, t in model.dequantized_tensors().items()}
with tempfile.TemporaryDirectory() as tmp:
    out = save_checkpoint(Path(tmp) / "ckpt", model.config, tensors)
    print("torch_dtype:", json.loads((out / "config.json").read_text())["torch_dtype"])
