"""save_checkpoint of a mixed-precision checkpoint (bf16 matrices, float32 norms, as many bf16 exports
store them): config.json's torch_dtype."""
import json
import tempfile
from pathlib import Path

import ml_dtypes
import numpy as np
from _w import small_model

from vtengine.checkpoint import save_checkpoint

model = small_model()
for name, cast in (("bf16 + f32 norms", ml_dtypes.bfloat16), ("f16 + f32 norms", np.float16)):
    tensors = {n: (t.astype(cast) if t.ndim == 2 else t) for n, t in model.dequantized_tensors().items()}
    with tempfile.TemporaryDirectory() as tmp:
        out = save_checkpoint(Path(tmp) / "ckpt", model.config, tensors)
        print(name, "->", json.loads((out / "config.json").read_text())["torch_dtype"], end="; ")
print()
