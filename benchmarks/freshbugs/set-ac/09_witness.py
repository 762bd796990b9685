"""09: a small fp8 checkpoint (128x128-block scales) written by save_checkpoint and read back."""
import os

import numpy as np

from _w import outcome, small_model, tmpdir
from vtengine.checkpoint import load_checkpoint, save_checkpoint
from vtengine.model import QuantizedWeight
from vtengine.numerics import FP8

m = small_model()
m_q = type(m)(m.config, m.dequantized_tensors(), quantize=True)
tensors = {}
for name, w in m_q.weights.items():
    if isinstance(w, QuantizedWeight):
        tensors[name] = w.codes.view(FP8)
        tensors[name + "_scale_inv"] = w.scales
    else:
        tensors[name] = w
d = os.path.join(tmpdir(), "fp8-ckpt")
save_checkpoint(d, m.config, tensors)


def load():
    cfg, back = load_checkpoint(d)
    same = all(np.array_equal(back[k].view(np.uint8) if back[k].dtype == FP8 else back[k],
                              tensors[k].view(np.uint8) if tensors[k].dtype == FP8 else tensors[k])
               for k in tensors)
    return f"{len(back)} tensors, identical {same}"


print(outcome(load))
