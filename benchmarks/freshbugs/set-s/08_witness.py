"""save_checkpoint + load_checkpoint round-trip a config exactly: a model with rms_norm_eps 1e-7
(and 1e-5) comes back with the same eps, and the reloaded model computes the same logits."""
import tempfile
from pathlib import Path

import numpy as np

from _w import engine, small_tensors

from vtengine.checkpoint import load_checkpoint, save_checkpoint
from vtengine.model import Model

ids = [3, 1, 4, 1, 5, 9, 2, 6]
results = []
with tempfile.TemporaryDirectory() as tmp:
    for eps in (1e-5, 1e-7):
        cfg, tensors = small_tensors(rms_norm_eps=eps)
        save_checkpoint(Path(tmp) / f"eps-{eps}", cfg, tensors)
        loaded_cfg, loaded = load_checkpoint(Path(tmp) / f"eps-{eps}")
        same = np.array_equal(engine(Model(cfg, tensors), act_dtype="f32").forward_logits(ids),
                              engine(Model(loaded_cfg, loaded), act_dtype="f32").forward_logits(ids))
        results.append(f"eps {eps!r} -> {loaded_cfg.rms_norm_eps!r}, same logits {same}")
print("; ".join(results))
