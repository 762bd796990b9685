"""Older HF checkpoints carry rotary_emb.inv_freq buffers: they are skipped on load."""
import tempfile
from pathlib import Path

import numpy as np

from _w import outcome, small_config
from vtengine.checkpoint import load_checkpoint, save_checkpoint
from vtengine.model import generate_tensors
from safetensors.numpy import load_file, save_file

cfg = small_config()
with tempfile.TemporaryDirectory() as tmp:
    d = save_checkpoint(Path(tmp, "ckpt"), cfg, generate_tensors(cfg))
    t = load_file(d / "model.safetensors")
    t["model.layers.0.self_attn.rotary_emb.inv_freq"] = np.ones(4, np.float32)
    save_file(t, d / "model.safetensors", metadata={"format": "pt"})
    print(outcome(lambda: len(load_checkpoint(d)[1])))
