import os, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
import _w
from vtengine.checkpoint import load_checkpoint, save_checkpoint
cfg, tensors = _w.small()
# a caller holding a weight as the transpose of a [in, out] array (Fortran-ordered view), as a converter might
name = "model.layers.0.mlp.down_proj.weight"
tensors[name] = np.asfortranarray(tensors[name])
def roundtrip():
    with tempfile.TemporaryDirectory() as d:
        save_checkpoint(os.path.join(d, "ck"), cfg, tensors)
        return bool(np.array_equal(load_checkpoint(os.path.join(d, "ck"))[1][name], tensors[name]))
print(_w.outcome(roundtrip))
