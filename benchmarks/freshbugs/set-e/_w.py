"""Shared helper for the set-e witnesses: a small generated model and short digests of outputs."""
import hashlib

import numpy as np

from vtengine.config import ModelConfig
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import Model, generate_tensors

CFG = ModelConfig(name="w-small", vocab_size=300, d_model=64, n_layers=2, n_heads=4, n_kv_heads=2,
                  d_ff=128, max_context=96, seed=7)


def model(cfg=CFG, quantize=False):
    return Model(cfg, generate_tensors(cfg), quantize=quantize)


def engine(cfg=CFG, knobs=None, quantize=False, **kw):
    return Engine(model(cfg, quantize), knobs if knobs is not None else Knobs(), **kw)


def h(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


PROMPT = [256, 72, 101, 108, 108, 111, 32, 119, 111, 114, 108, 100, 33, 10, 72, 101, 108, 108, 111]
