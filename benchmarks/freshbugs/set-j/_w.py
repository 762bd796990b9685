"""Shared helpers for the set-j witnesses: small generated models through the public API."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import numpy as np

from vtengine.config import ModelConfig
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import Model, generate_tensors


def small_config(**changes) -> ModelConfig:
    base = dict(name="w-small", vocab_size=64, d_model=64, n_layers=2, n_heads=4, n_kv_heads=2, d_ff=96,
                max_context=128, seed=7)
    base.update(changes)
    return ModelConfig(**base)


def small_model(**changes) -> Model:
    config = small_config(**changes)
    return Model(config, generate_tensors(config))


def engine(model: Model | None = None, **knobs) -> Engine:
    return Engine(model if model is not None else small_model(), Knobs(**knobs))


def h(array) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()[:16]


def cli(*args: str, env: dict | None = None, stdin=None) -> subprocess.CompletedProcess:
    full = dict(os.environ)
    full.update(env or {})
    return subprocess.run([sys.executable, "-m", "vtengine", *args], capture_output=True, text=True, env=full,
                          stdin=subprocess.DEVNULL)
