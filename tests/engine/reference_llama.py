"""An independent float64 Llama forward pass, written from the Hugging Face ``LlamaForCausalLM``
semantics and nothing else: the accuracy yardstick for vtengine's f32 path and its checkpoint loader.

Deliberately naive: whole-sequence recompute, no paging, no KV cache, no kernels from vtengine (only
its config dataclass), everything in float64. If this file and the engine agree, both follow the
Hugging Face conventions, or both are wrong in the same way; the one-off cross-check against
transformers in docs/checkpoints.md guards the second case.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from vtengine.config import ModelConfig

FP8_BLOCK = 128


def weight_f64(tensors: Mapping[str, np.ndarray], name: str) -> np.ndarray:
    """A weight as float64. fp8-e4m3 weights are multiplied by their 128x128 block scales
    (``<name>_scale_inv``, DeepSeek-V3 style); every other dtype converts exactly."""
    weight = tensors[name]
    scale_name = name + "_scale_inv"
    if scale_name not in tensors:
        return np.asarray(weight, dtype=np.float64)
    rows, cols = weight.shape
    scales = np.asarray(tensors[scale_name], dtype=np.float64)
    scales = np.repeat(np.repeat(scales, FP8_BLOCK, axis=0), FP8_BLOCK, axis=1)[:rows, :cols]
    return weight.astype(np.float64) * scales


def rms_norm(x: np.ndarray, weight: np.ndarray, eps: float) -> np.ndarray:
    """LlamaRMSNorm: x * rsqrt(mean(x^2) + eps) * weight."""
    variance = np.mean(x * x, axis=-1, keepdims=True)
    return x / np.sqrt(variance + eps) * weight


def rope_cos_sin(positions: np.ndarray, head_dim: int, theta: float) -> tuple[np.ndarray, np.ndarray]:
    """LlamaRotaryEmbedding (rope_type 'default'): inv_freq = 1/theta^(arange(0, hd, 2)/hd), and the
    angle table repeated over the two halves of the head: emb = cat(freqs, freqs)."""
    inv_freq = 1.0 / theta ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    freqs = np.outer(positions.astype(np.float64), inv_freq)  # [T, hd/2]
    emb = np.concatenate([freqs, freqs], axis=-1)  # [T, hd]
    return np.cos(emb), np.sin(emb)


def rotate_half(x: np.ndarray) -> np.ndarray:
    """cat(-x2, x1) where x1, x2 are the first and second halves of the last axis."""
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def apply_rope(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """x: [heads, T, hd]; cos, sin: [T, hd]. apply_rotary_pos_emb: x*cos + rotate_half(x)*sin."""
    return x * cos[None] + rotate_half(x) * sin[None]


def silu(x: np.ndarray) -> np.ndarray:
    return x / (1.0 + np.exp(-x))


def attention(
    x: np.ndarray, tensors: Mapping[str, np.ndarray], prefix: str, config: ModelConfig,
    cos: np.ndarray, sin: np.ndarray,
) -> np.ndarray:
    """LlamaAttention over the whole sequence: projections, RoPE on q and k, grouped-query heads
    (query head h reads key/value head h // (n_heads / n_kv_heads), as repeat_kv does), causal
    softmax(q k^T / sqrt(hd)) v, output projection."""
    seq, hd = x.shape[0], config.head_dim
    q = x @ weight_f64(tensors, prefix + "q_proj.weight").T  # [T, n_heads*hd]
    k = x @ weight_f64(tensors, prefix + "k_proj.weight").T  # [T, n_kv*hd]
    v = x @ weight_f64(tensors, prefix + "v_proj.weight").T
    q = q.reshape(seq, config.n_heads, hd).transpose(1, 0, 2)  # [H, T, hd]
    k = k.reshape(seq, config.n_kv_heads, hd).transpose(1, 0, 2)  # [KV, T, hd]
    v = v.reshape(seq, config.n_kv_heads, hd).transpose(1, 0, 2)
    q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
    group = config.n_heads // config.n_kv_heads
    k, v = np.repeat(k, group, axis=0), np.repeat(v, group, axis=0)  # repeat_kv: [H, T, hd]
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(hd)  # [H, T, T]
    future = np.triu(np.ones((seq, seq), dtype=bool), k=1)
    scores = np.where(future[None], -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    probs = np.exp(scores)
    probs /= probs.sum(axis=-1, keepdims=True)
    out = (probs @ v).transpose(1, 0, 2).reshape(seq, config.n_heads * hd)
    return out @ weight_f64(tensors, prefix + "o_proj.weight").T


def mlp(x: np.ndarray, tensors: Mapping[str, np.ndarray], prefix: str) -> np.ndarray:
    """LlamaMLP: down(silu(gate(x)) * up(x))."""
    gate = x @ weight_f64(tensors, prefix + "gate_proj.weight").T
    up = x @ weight_f64(tensors, prefix + "up_proj.weight").T
    return (silu(gate) * up) @ weight_f64(tensors, prefix + "down_proj.weight").T


def forward_logits(config: ModelConfig, tensors: Mapping[str, np.ndarray], token_ids: Sequence[int]) -> np.ndarray:
    """[T, vocab] float64 logits of LlamaForCausalLM for ``token_ids`` at positions 0..T-1, from
    tensors by Hugging Face name (``lm_head.weight`` absent means tied to the embedding)."""
    ids = np.asarray(token_ids, dtype=np.int64)
    eps = config.rms_norm_eps
    x = weight_f64(tensors, "model.embed_tokens.weight")[ids]  # [T, d_model]
    cos, sin = rope_cos_sin(np.arange(len(ids)), config.head_dim, config.rope_theta)
    for layer in range(config.n_layers):
        p = f"model.layers.{layer}."
        h = rms_norm(x, weight_f64(tensors, p + "input_layernorm.weight"), eps)
        x = x + attention(h, tensors, p + "self_attn.", config, cos, sin)
        h = rms_norm(x, weight_f64(tensors, p + "post_attention_layernorm.weight"), eps)
        x = x + mlp(h, tensors, p + "mlp.")
    x = rms_norm(x, weight_f64(tensors, "model.norm.weight"), eps)
    head = "model.embed_tokens.weight" if "lm_head.weight" not in tensors else "lm_head.weight"
    return x @ weight_f64(tensors, head).T
