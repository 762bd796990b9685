"""06: generated weights against the documented stream: PCG64(config.seed) doubles, drawn tensor after tensor
in hf_names order (model.hf_names: "vt-tiny's weights are drawn in this order"), each mapped to a uniform of
its standard deviation. The first two names are the embedding (std 1) and layer 0's q_proj (std
1/sqrt(d_model))."""
import math

import numpy as np

from _w import engine, small_config
from vtengine.model import Model, generate_tensors, hf_names

cfg = small_config()
rng = np.random.Generator(np.random.PCG64(cfg.seed))
tensors = generate_tensors(cfg)
first, second = hf_names(cfg)[:2]


def draw(shape, std):
    return ((rng.random(shape) * 2.0 - 1.0) * (std * math.sqrt(3.0))).astype(np.float32)


emb = np.array_equal(tensors[first], draw(tensors[first].shape, 1.0))
q = np.array_equal(tensors[second], draw(tensors[second].shape, 1.0 / math.sqrt(cfg.d_model)))
print("greedy tokens of the generated model:", engine(Model(cfg, tensors)).generate([1, 2, 3], 6).tokens)
print(f"{first} is draw 1: {emb}; {second} is draw 2: {q}")
