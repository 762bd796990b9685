import os, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
import _w
from safetensors.numpy import load_file, save_file
from vtengine.checkpoint import load_checkpoint, save_checkpoint
# a 12-layer checkpoint from an older exporter that still carries rotary_emb.inv_freq buffers
cfg, tensors = _w.small(n_layers=12)
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "deep")
    save_checkpoint(path, cfg, tensors)
    f = os.path.join(path, "model.safetensors")
    stored = load_file(f)
    for i in range(cfg.n_layers):
        stored[f"model.layers.{i}.self_attn.rotary_emb.inv_freq"] = np.ones(cfg.head_dim // 2, np.float32)
    save_file(stored, f, metadata={"format": "pt"})
    print(_w.outcome(lambda: len(load_checkpoint(path)[1])))
