"""03: Model.digest() identifies a model's weights: "sha256 over stored weights" (docs/engine.md), the
artifact digest observations report. The same checkpoint must give the same digest wherever it lies
and however it is built: loaded from its directory, from a copy in another directory, or built in
memory from the same tensors. The witness saves a small checkpoint, copies the directory, and compares
the three digests (and a genuinely different model's)."""
import os
import shutil

import numpy as np

import _w
from vtengine.checkpoint import save_checkpoint
from vtengine.model import Model, load_model

cfg, tensors = _w.small_tensors()
work = _w.tmpdir()
first = os.path.join(work, "ckpt")
save_checkpoint(first, cfg, tensors)
copy = shutil.copytree(first, os.path.join(work, "elsewhere", "ckpt-copy"))
d_first = load_model(first).digest()
d_copy = load_model(copy).digest()
d_memory = Model(cfg, tensors).digest()
changed = dict(tensors)
changed["model.norm.weight"] = tensors["model.norm.weight"] * np.float32(2)
d_other = Model(cfg, changed).digest()
print("copy in another directory has the same digest:", d_copy == d_first)
print("in-memory model of the same tensors has the same digest:", d_memory == d_first)
print("a different model has another digest:", d_other != d_first)
print("summary:", d_copy == d_first, d_memory == d_first, d_other != d_first)
