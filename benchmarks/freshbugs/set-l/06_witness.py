"""A model with large gate projections (SwiGLU gate pre-activations in the thousands, as in
checkpoints with outlier channels): logits must stay finite."""
import warnings

import numpy as np

from _w import small_config
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import Model, generate_tensors

warnings.simplefilter("ignore")
cfg = small_config()
t = generate_tensors(cfg)
for i in range(cfg.n_layers):
    t[f"model.layers.{i}.mlp.gate_proj.weight"] *= np.float32(400.0)
    t[f"model.layers.{i}.mlp.down_proj.weight"] *= np.float32(0.001)
m = Model(cfg, t)
for dtype in ("f32", "bf16"):
    g = Engine(m, Knobs(act_dtype=dtype)).generate([1, 2, 3, 4, 5], 4)
    print(f"{dtype}: tokens {g.tokens} non-finite logits {int((~np.isfinite(g.logits)).sum())}/{g.logits.size}")
