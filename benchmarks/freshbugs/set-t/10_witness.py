"""10: load_model(DIR, quantize=True) on a small model saved as float32, float16 and bfloat16 checkpoints:
whether the quantized model differs from the float one (digest), and how many fp8 matrices it holds."""
import shutil
import tempfile
from pathlib import Path

import ml_dtypes
import numpy as np

from _w import small_tensors
from vtengine.checkpoint import save_checkpoint
from vtengine.model import QuantizedWeight, load_model

cfg, tensors = small_tensors()
base = Path(tempfile.mkdtemp())
try:
    for label, dtype in (("float32", np.float32), ("float16", np.float16), ("bfloat16", ml_dtypes.bfloat16)):
        directory = save_checkpoint(base / label, cfg, {n: t.astype(dtype) for n, t in tensors.items()})
        plain, quant = load_model(str(directory)), load_model(str(directory), quantize=True)
        fp8 = sum(isinstance(w, QuantizedWeight) for w in quant.weights.values())
        print(f"{label}: quantize=True differs from float: {quant.digest() != plain.digest()}, fp8 matrices {fp8}")
finally:
    shutil.rmtree(base)
