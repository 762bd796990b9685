"""10: generated weights follow the documented scales: o_proj std 1.5/sqrt(d_model), down_proj
1.5/sqrt(d_ff), q/k/v/gate/up 1/sqrt(d_model) (uniform, so |w| <= std*sqrt(3))."""
import math

import numpy as np

from _w import small_tensors

cfg, t = small_tensors()
d, f = cfg.d_model, cfg.d_ff
p = "model.layers.0."
res = []
for name, std in (("self_attn.q_proj", 1 / math.sqrt(d)), ("self_attn.o_proj", 1.5 / math.sqrt(d)),
                  ("mlp.down_proj", 1.5 / math.sqrt(f))):
    w = t[p + name + ".weight"]
    res.append(f"{name.split('.')[-1]} max|w|/bound {float(np.abs(w).max()) / (std * math.sqrt(3)):.2f}")
print("; ".join(res))
