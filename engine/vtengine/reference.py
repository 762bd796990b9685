"""A float64 Llama forward pass kept simple enough to read in one sitting, the yardstick of the
property layer (:mod:`vtengine.properties`): embedding, RMSNorm, RoPE (Hugging Face halves),
grouped-query causal attention, SwiGLU, tied or untied head. It uses none of the engine's kernels:
only the weights' float values (``Model.dequantized_tensors``, the numbers the engine computes with).

``noise`` derives the tolerance. At every point where the engine rounds (each op's output to the
activation dtype, each float32 sum), the engine's error is at most a known bound: ``u_act * |y|``
for the rounding to bf16 (u = 2**-8; 0 on the f32 path) plus ``u32 * (|y| + sqrt(n) * sum|terms|)``
for a float32 op over n terms (u32 = 2**-24; the sqrt(n) is the probabilistic bound of Higham & Mary
for sums of rounded terms). With ``noise`` set, each such point adds ``bound * d``, d uniform in
[-1, 1]: the spread of the logits over a few noisy runs is how far those errors can carry through
the network, which :mod:`vtengine.properties` turns into the tolerance.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vtengine.config import ModelConfig

U32 = 2.0**-24
U_BF16 = 2.0**-8

Noise = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (value, error bound) -> value with error


class Rounding:
    """Where the engine rounds, and by how much it may err there (see the module doc)."""

    def __init__(self, bf16: bool, noise: Noise | None) -> None:
        self.u_act = U_BF16 if bf16 else 0.0
        self.noise = noise

    def op(self, y: np.ndarray, terms: int = 1, absolute: np.ndarray | None = None, act: bool = True) -> np.ndarray:
        """``y`` computed in float32 over ``terms`` terms whose magnitudes sum to ``absolute``, then
        rounded to the activation dtype (``act``)."""
        if self.noise is None:
            return y
        size = np.abs(y) if absolute is None else absolute
        bound = U32 * (np.abs(y) + np.sqrt(terms) * size) + (self.u_act * np.abs(y) if act else 0.0)
        return self.noise(y, bound)


def rms_norm(x: np.ndarray, w: np.ndarray, eps: float, r: Rounding) -> np.ndarray:
    ms = r.op(np.mean(x * x, axis=-1, keepdims=True), x.shape[-1], act=False)
    return r.op(x / np.sqrt(ms + eps) * w)


def linear(x: np.ndarray, w: np.ndarray, r: Rounding, act: bool = True) -> np.ndarray:
    """x [T, in] @ w[out, in].T, as the engine's float32 GEMV then rounds it."""
    return r.op(x @ w.T, x.shape[-1], np.abs(x) @ np.abs(w).T, act=act)


def rope(x: np.ndarray, positions: np.ndarray, theta: float, r: Rounding) -> np.ndarray:
    """x [T, heads, hd]: rotate the two halves, [x1, x2] -> [x1 cos - x2 sin, x2 cos + x1 sin]."""
    hd = x.shape[-1]
    inv_freq = 1.0 / theta ** (np.arange(0, hd, 2, dtype=np.float64) / hd)
    angles = np.outer(positions, inv_freq)
    cos = np.concatenate([np.cos(angles)] * 2, axis=-1)[:, None, :]
    sin = np.concatenate([np.sin(angles)] * 2, axis=-1)[:, None, :]
    rotated = np.concatenate([-x[..., hd // 2 :], x[..., : hd // 2]], axis=-1)
    y = x * cos + rotated * sin
    return r.op(y, 2, np.abs(x * cos) + np.abs(rotated * sin))


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, r: Rounding) -> np.ndarray:
    """Causal GQA: q [T, H, hd], k/v [T, KV, hd] -> [T, H * hd]; query head h reads KV head h // (H/KV)."""
    t, heads, hd = q.shape
    group = heads // k.shape[1]
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    scores = np.einsum("qhd,khd->hqk", q, k) / np.sqrt(hd)
    scores = r.op(scores, hd, np.einsum("qhd,khd->hqk", np.abs(q), np.abs(k)) / np.sqrt(hd), act=False)
    scores = np.where(np.tril(np.ones((t, t), bool)), scores, -np.inf)
    p = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p = r.op(p / p.sum(axis=-1, keepdims=True), t, act=False)
    out = np.einsum("hqk,khd->qhd", p, v)
    return r.op(out, t, np.einsum("hqk,khd->qhd", p, np.abs(v))).reshape(t, heads * hd)


def forward(config: ModelConfig, tensors: dict[str, np.ndarray], ids: list[int], bf16: bool = True,
            noise: Noise | None = None) -> np.ndarray:
    """Logits [len(ids), vocab] float64 for every position of ``ids`` (HF-named float tensors)."""
    w = {name: np.asarray(t, np.float64) for name, t in tensors.items()}
    r = Rounding(bf16, noise)
    heads, kv, hd = config.n_heads, config.n_kv_heads, config.head_dim
    positions = np.arange(len(ids), dtype=np.float64)
    x = r.op(w["model.embed_tokens.weight"][ids])
    for i in range(config.n_layers):
        p = f"model.layers.{i}."
        h = rms_norm(x, w[p + "input_layernorm.weight"], config.rms_norm_eps, r)
        q = rope(linear(h, w[p + "self_attn.q_proj.weight"], r).reshape(-1, heads, hd), positions,
                 config.rope_theta, r)
        k = rope(linear(h, w[p + "self_attn.k_proj.weight"], r).reshape(-1, kv, hd), positions,
                 config.rope_theta, r)
        v = linear(h, w[p + "self_attn.v_proj.weight"], r).reshape(-1, kv, hd)
        x = r.op(x + linear(attention(q, k, v, r), w[p + "self_attn.o_proj.weight"], r))
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], config.rms_norm_eps, r)
        gate, up = linear(h, w[p + "mlp.gate_proj.weight"], r), linear(h, w[p + "mlp.up_proj.weight"], r)
        act = r.op(r.op(gate / (1.0 + np.exp(-gate))) * up)
        x = r.op(x + linear(act, w[p + "mlp.down_proj.weight"], r))
    head = w.get("lm_head.weight", w["model.embed_tokens.weight"])  # tied: the embedding is the head
    return linear(rms_norm(x, w["model.norm.weight"], config.rms_norm_eps, r), head, r, act=False)
