"""09: save_checkpoint of the same small model held in bfloat16 and in float16 (the config.json torch_dtype it
writes, documented as the weights' dtype), and loading each back."""
import json
import shutil
import tempfile
from pathlib import Path

import ml_dtypes
import numpy as np

from _w import outcome, small_tensors
from vtengine.checkpoint import load_checkpoint, save_checkpoint

base = Path(tempfile.mkdtemp())
try:
    cfg, tensors = small_tensors()
    for label, dtype in (("bfloat16", ml_dtypes.bfloat16), ("float16", np.float16)):
        cast = {n: t.astype(dtype) for n, t in tensors.items()}

        def save_and_read(cast=cast, label=label):
            out = save_checkpoint(base / label, cfg, cast)
            torch_dtype = json.loads((out / "config.json").read_text())["torch_dtype"]
            _, back = load_checkpoint(out)
            return f"torch_dtype {torch_dtype}, tensors read back {len(back)}"

        print(f"{label} weights:", outcome(save_and_read))
finally:
    shutil.rmtree(base)
