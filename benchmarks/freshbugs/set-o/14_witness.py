"""An fp8 checkpoint (DeepSeek-V3 block scales) loads to the same weights it was saved with."""
import tempfile
from pathlib import Path

import numpy as np

from _w import small_config
from vtengine.checkpoint import SCALE_SUFFIX, save_checkpoint
from vtengine.model import Model, generate_tensors, load_model
from vtengine.numerics import FP8, quantize_fp8_blocks

cfg = small_config()
tensors = {}
for name, t in generate_tensors(cfg).items():
    if t.ndim == 2:
        codes, scales = quantize_fp8_blocks(t)
        tensors[name], tensors[name + SCALE_SUFFIX] = codes.view(FP8), scales
    else:
        tensors[name] = t
with tempfile.TemporaryDirectory() as tmp:
    save_checkpoint(Path(tmp, "fp8"), cfg, tensors)
    loaded = load_model(str(Path(tmp, "fp8")))
    print("loaded digest equals in-memory model:", loaded.digest() == Model(cfg, tensors).digest(),
          "q_proj[0,0]", float(loaded.tensor("model.layers.0.self_attn.q_proj.weight")[0, 0]))
