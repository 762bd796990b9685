"""A model with an odd intermediate size (d_ff=97) under the bf16 pair-dot GEMV arm."""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w

from vtengine.config import ModelConfig
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import Model, generate_tensors
cfg = ModelConfig(name="odd", vocab_size=64, d_model=64, n_layers=2, n_heads=4, n_kv_heads=2, d_ff=97, max_context=64, seed=7)
m = Model(cfg, generate_tensors(cfg))
e = Engine(m, Knobs(gemv_bf16_dot=True))
print(_w.h(e.forward_logits([1, 2, 3, 4, 5])))
