# quantize=True on a checkpoint with an all-zero weight matrix (a pruned projection): zeros stay zeros
import hashlib
import numpy as np
from vtengine.engine import Engine
from vtengine.model import Model, load_model
from vtengine import tokenizer

m = load_model("vt-tiny")
t = m.dequantized_tensors()
t["model.layers.1.self_attn.o_proj.weight"][:] = 0.0
q = Model(m.config, t, quantize=True)
w = q.tensor("model.layers.1.self_attn.o_proj.weight")
print("o_proj all zero", bool(np.all(w == 0)), "nan", bool(np.isnan(w).any()))
lg = Engine(q).score(tokenizer.encode("pruned")).logits
print("logits nan", bool(np.isnan(lg).any()), hashlib.sha256(lg.tobytes()).hexdigest()[:16])
