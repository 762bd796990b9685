"""Shared helpers for the set-v witnesses: small generated float32 models, an outcome formatter that
scrubs temporary paths, subprocess runners for the CLI and for a child interpreter (PYTHONHASHSEED=0, CI
unset, stdin from /dev/null), and an independent float64 NumPy Llama forward (reference_logits) for
closeness checks."""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys

import numpy as np

from vtengine.config import ModelConfig
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import Model, generate_tensors

PY = sys.executable


def small_config(**over) -> ModelConfig:
    base = dict(name="v-small", vocab_size=64, d_model=32, n_layers=2, n_heads=4, n_kv_heads=2,
                d_ff=48, max_context=128, seed=7)
    base.update(over)
    return ModelConfig(**base)


def small_tensors(**over) -> tuple[ModelConfig, dict[str, np.ndarray]]:
    cfg = small_config(**over)
    return cfg, generate_tensors(cfg)


def small_model(**over) -> Model:
    cfg, tensors = small_tensors(**over)
    return Model(cfg, tensors)


def engine(model: Model, max_tokens: int | None = None, **knobs) -> Engine:
    return Engine(model, Knobs(**knobs), max_tokens=max_tokens)


def h(a: np.ndarray) -> str:
    """Short sha256 of float32 values (little-endian)."""
    return hashlib.sha256(np.ascontiguousarray(a, dtype="<f4").tobytes()).hexdigest()[:16]


def scrub(text: str) -> str:
    """Temporary directory names replaced by <tmp> (they differ from run to run)."""
    return re.sub(r"/tmp/[A-Za-z0-9_.-]*tmp[A-Za-z0-9_]+", "<tmp>", text)


def outcome(fn) -> str:
    """fn()'s value, or the exception's type and first words (temporary paths scrubbed)."""
    try:
        return scrub(f"ok {fn()}")
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__}: {scrub(' '.join(str(error).split()))[:100]}"


def child_env(env: dict | None = None) -> dict:
    e = dict(os.environ)
    e["PYTHONHASHSEED"] = "0"
    e.pop("CI", None)
    if env:
        e.update(env)
    return e


def cli(*args: str, env: dict | None = None, cwd: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "vtengine", *args], capture_output=True, text=True, env=child_env(env),
                          cwd=cwd, stdin=subprocess.DEVNULL, timeout=300)


def py(code: str, env: dict | None = None, cwd: str | None = None) -> subprocess.CompletedProcess:
    """Run a small Python program in a fresh interpreter (same PYTHONPATH, stdin from /dev/null)."""
    return subprocess.run([PY, "-c", code], capture_output=True, text=True, env=child_env(env), cwd=cwd,
                          stdin=subprocess.DEVNULL, timeout=300)


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return scrub(lines[-1]) if lines else ""


def reference_logits(cfg: ModelConfig, tensors: dict[str, np.ndarray], ids: list[int]) -> np.ndarray:
    """An independent float64 Llama forward (Hugging Face conventions: RMSNorm, rotate-half RoPE, GQA,
    causal softmax attention, SwiGLU), for closeness checks against the float32 engine."""
    t = {k: np.asarray(v, np.float64) for k, v in tensors.items()}
    H, KV, hd = cfg.n_heads, cfg.n_kv_heads, cfg.head_dim
    T = len(ids)

    def norm(x, w):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + cfg.rms_norm_eps) * w

    inv = 1.0 / cfg.rope_theta ** (np.arange(0, hd, 2) / hd)
    ang = np.arange(T)[:, None] * inv[None, :]
    cos, sin = np.concatenate([np.cos(ang)] * 2, 1), np.concatenate([np.sin(ang)] * 2, 1)

    def rope(x):  # x [T, heads, hd]
        half = hd // 2
        rot = np.concatenate([-x[..., half:], x[..., :half]], -1)
        return x * cos[:, None, :] + rot * sin[:, None, :]

    x = t["model.embed_tokens.weight"][ids]
    mask = np.tril(np.ones((T, T), bool))
    for i in range(cfg.n_layers):
        p = f"model.layers.{i}."
        h = norm(x, t[p + "input_layernorm.weight"])
        q = rope((h @ t[p + "self_attn.q_proj.weight"].T).reshape(T, H, hd))
        k = rope((h @ t[p + "self_attn.k_proj.weight"].T).reshape(T, KV, hd))
        v = (h @ t[p + "self_attn.v_proj.weight"].T).reshape(T, KV, hd)
        k, v = np.repeat(k, H // KV, axis=1), np.repeat(v, H // KV, axis=1)
        s = np.einsum("thd,shd->hts", q, k) / np.sqrt(hd)
        s = np.where(mask[None], s, -np.inf)
        pr = np.exp(s - s.max(-1, keepdims=True))
        pr /= pr.sum(-1, keepdims=True)
        o = np.einsum("hts,shd->thd", pr, v).reshape(T, H * hd)
        x = x + o @ t[p + "self_attn.o_proj.weight"].T
        h = norm(x, t[p + "post_attention_layernorm.weight"])
        g, u = h @ t[p + "mlp.gate_proj.weight"].T, h @ t[p + "mlp.up_proj.weight"].T
        x = x + (g / (1 + np.exp(-g)) * u) @ t[p + "mlp.down_proj.weight"].T
    head = t["model.embed_tokens.weight"] if cfg.tie_word_embeddings else t["lm_head.weight"]
    return norm(x, t["model.norm.weight"]) @ head.T
