# fp8 block-quantized model (several 128x128 blocks per matrix): the values the engine computes with
import numpy as np
from _w import small_config, small_tensors, h
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import Model

cfg = small_config(d_model=256, d_ff=256, n_layers=1)
model = Model(cfg, small_tensors(cfg), quantize=True)
w = model.dequantized_tensors()["model.layers.0.mlp.up_proj.weight"]
g = Engine(model, Knobs()).generate([256, 10, 20, 30], 3)
print("digest", model.digest()[:16], "up_proj", h(w), "tokens", g.tokens, "logits", h(g.logits))
