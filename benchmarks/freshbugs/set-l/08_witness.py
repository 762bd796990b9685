"""save_checkpoint(..., overwrite=True) onto an existing checkpoint replaces it (documented: the
previous one stays if the write fails, and is replaced when it succeeds)."""
import tempfile
from pathlib import Path

import numpy as np

from _w import small_model
from vtengine.checkpoint import load_checkpoint, save_checkpoint

m = small_model()
tensors = m.dequantized_tensors()
with tempfile.TemporaryDirectory() as tmp:
    target = Path(tmp) / "ckpt"
    save_checkpoint(target, m.config, tensors)
    tensors2 = dict(tensors)
    tensors2["model.norm.weight"] = tensors["model.norm.weight"] * np.float32(2)
    try:
        save_checkpoint(target, m.config, tensors2, overwrite=True)
        _, back = load_checkpoint(target)
        verdict = "replaced, norm doubled: " + str(bool(np.array_equal(back["model.norm.weight"], tensors2["model.norm.weight"])))
    except Exception as error:  # noqa: BLE001
        verdict = f"{type(error).__name__}: {getattr(error, 'strerror', None) or error}"
    print("overwrite=True onto an existing checkpoint:", verdict, "| left in parent:", sorted(p.name for p in Path(tmp).iterdir()))
