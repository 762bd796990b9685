"""Shared witness helpers: small generated float32 models (public API only)."""
import hashlib
import numpy as np
from vtengine.checkpoint import expected_shapes
from vtengine.config import ModelConfig
from vtengine.model import Model


def small_config(**kw):
    base = dict(name="w", vocab_size=300, d_model=64, n_layers=2, n_heads=4, n_kv_heads=2, d_ff=96, max_context=64)
    base.update(kw)
    return ModelConfig(**base)


def small_tensors(cfg, seed=1):
    rng = np.random.default_rng(seed)
    out = {}
    for name, shape in expected_shapes(cfg).items():
        if name.endswith("norm.weight"):
            out[name] = (1.0 + 0.1 * rng.standard_normal(shape)).astype(np.float32)
        else:
            out[name] = (rng.standard_normal(shape) / np.sqrt(shape[-1])).astype(np.float32)
    return out


def small_model(seed=1, **kw):
    cfg = small_config(**kw)
    return Model(cfg, small_tensors(cfg, seed))


def h(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]
