"""03: the generated weights' standard deviations against the ones generate_tensors documents (embeddings 1,
q/k/v/gate/up 1/sqrt(d_model), lm_head 2/sqrt(d_model)), on vt-tiny's config: sample std within 2 %?"""
import math

import numpy as np

from vtengine.config import VT_TINY
from vtengine.model import generate_tensors

t = generate_tensors(VT_TINY)
d = VT_TINY.d_model
checks = {
    "model.embed_tokens.weight": 1.0,
    "model.layers.0.self_attn.q_proj.weight": 1.0 / math.sqrt(d),
    "model.layers.1.mlp.up_proj.weight": 1.0 / math.sqrt(d),
    "lm_head.weight": 2.0 / math.sqrt(d),
}
ok = {name.split(".")[-2]: bool(abs(float(np.std(t[name].astype(np.float64))) / std - 1.0) < 0.02)
      for name, std in checks.items()}
print("std within 2% of the documented value:", ok)
