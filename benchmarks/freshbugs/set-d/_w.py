"""Shared helper for the witnesses: a small generated Llama model (float32 weights)."""
import hashlib, os
os.environ.setdefault("VT_CACHE_DIR", "/tmp/freshbugs-d-cache")
import numpy as np
from vtengine.config import ModelConfig
from vtengine.model import Model, generate_tensors


def small(**kw):
    base = dict(name="w", vocab_size=300, d_model=64, n_layers=2, n_heads=4, n_kv_heads=2, d_ff=128,
                max_context=64, seed=7)
    base.update(kw)
    cfg = ModelConfig(**base)
    return Model(cfg, generate_tensors(cfg))


def h(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]
