"""Quantizing a model whose layer-0 o_proj is all zeros (a pruned head block) to fp8 blocks."""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w

import numpy as np
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import Model
m = _w.model()
t = m.dequantized_tensors()
t["model.layers.0.self_attn.o_proj.weight"][:] = 0.0
q = Model(m.config, t, quantize=True)
logits = Engine(q, Knobs()).forward_logits([256, 1, 2, 3])
print("nan", int(np.isnan(logits).sum()), _w.h(logits))
