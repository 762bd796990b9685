import hashlib, os, sys
from pathlib import Path
import numpy as np
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import load_model

def model():
    return load_model("vt-tiny", Path(os.environ["VT_CACHE_DIR"]))

def engine(max_tokens=None, **knobs):
    return Engine(model(), Knobs(**knobs), max_tokens=max_tokens)

def h(a):
    return hashlib.sha256(np.ascontiguousarray(a, dtype="<f4").tobytes()).hexdigest()[:16]

def small(**changes):
    """A small model of a non-default shape, generated from its seed (vtengine.model.generate_tensors)."""
    from vtengine.config import ModelConfig
    from vtengine.model import generate_tensors
    base = dict(name="small", vocab_size=300, d_model=32, n_layers=2, n_heads=4, n_kv_heads=2, d_ff=48,
                max_context=64, seed=7)
    base.update(changes)
    cfg = ModelConfig(**base)
    return cfg, generate_tensors(cfg)

def outcome(fn):
    try:
        r = fn()
        return f"ok {r}"
    except Exception as e:  # the exception type is the observation
        return f"{type(e).__name__}"
