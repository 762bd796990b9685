"""Shared helpers for the witnesses (public API only)."""
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

PY = sys.executable


def cache_dir() -> Path:
    return Path(os.environ["VT_CACHE_DIR"])


def tiny():
    from vtengine.model import load_model
    return load_model("vt-tiny", cache_dir())


def small_config(**kw):
    from vtengine.config import ModelConfig
    base = dict(name="small", vocab_size=300, d_model=32, n_layers=2, n_heads=4, n_kv_heads=2, d_ff=48,
                max_context=64, seed=7)
    base.update(kw)
    return ModelConfig(**base)


def small_tensors(cfg):
    from vtengine.model import generate_tensors
    return generate_tensors(cfg)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def vtengine(*args, env=None, **kw):
    """Run the vtengine CLI; returns CompletedProcess."""
    full = {**os.environ, "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    return subprocess.run([PY, "-m", "vtengine", *args], env=full, capture_output=True, text=True, **kw)
