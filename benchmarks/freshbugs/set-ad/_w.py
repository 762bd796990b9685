"""Shared helpers for the set-ad witnesses: small generated float32 models, an outcome formatter that
scrubs temporary paths, and subprocess runners for the CLI (PYTHONHASHSEED=0, CI unset, stdin from
/dev/null)."""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

from vtengine.config import ModelConfig
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import Model, generate_tensors

PY = sys.executable


def small_config(**over) -> ModelConfig:
    base = dict(name="ad-small", vocab_size=64, d_model=32, n_layers=2, n_heads=4, n_kv_heads=2,
                d_ff=48, max_context=128, seed=31)
    base.update(over)
    return ModelConfig(**base)


def small_model(**over) -> Model:
    cfg = small_config(**over)
    return Model(cfg, generate_tensors(cfg))


def engine(model: Model, max_tokens: int | None = None, **knobs) -> Engine:
    return Engine(model, Knobs(**knobs), max_tokens=max_tokens)


def digest(a) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:12]


def tmpdir() -> str:
    return tempfile.mkdtemp(prefix="setad-tmp")


def scrub(text: str) -> str:
    text = re.sub(r"/tmp/setad-tmp[A-Za-z0-9_]+", "<tmp>", text)
    return re.sub(r"\.partial-[A-Za-z0-9_]+", ".partial-XXXX", text)


def outcome(fn) -> str:
    """fn()'s value, or the exception's type and first words (temporary paths scrubbed)."""
    try:
        return scrub(f"ok {fn()}")
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__}: {scrub(' '.join(str(error).split()))[:90]}"


def child_env(env: dict | None = None) -> dict:
    e = dict(os.environ)
    e["PYTHONHASHSEED"] = "0"
    e.pop("CI", None)
    if env:
        e.update(env)
    return e


def cli(*args: str, env: dict | None = None, cwd: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "vtengine", *args], capture_output=True, text=True, env=child_env(env),
                          cwd=cwd, stdin=subprocess.DEVNULL, timeout=timeout)


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return scrub(lines[-1]) if lines else ""
