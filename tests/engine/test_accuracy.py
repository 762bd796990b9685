"""Accuracy of vtengine against an independent float64 reference (tests/engine/reference_llama.py).

First the yardstick itself is checked on properties any Llama forward has (causality, GQA as
repeated KV heads, tied head, fp8 block scales), so a wrong reference cannot bless a wrong engine.
Then the engine's f32 activation path is held to it on vt-tiny, on a checkpoint written by
save_checkpoint, and on the model `vtengine export` writes.
"""

from __future__ import annotations

import importlib.util
from dataclasses import replace
from pathlib import Path

import ml_dtypes
import numpy as np
from vtengine.checkpoint import expected_shapes, fp8_scale_shape
from vtengine.config import ModelConfig


def _load_reference():
    # pytest runs with --import-mode=importlib: tests/engine is not on sys.path, so load by file.
    path = Path(__file__).with_name("reference_llama.py")
    spec = importlib.util.spec_from_file_location("reference_llama", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = _load_reference()

SMALL = ModelConfig(name="small", vocab_size=80, d_model=32, n_layers=2, n_heads=4, n_kv_heads=2, d_ff=48)


def random_llama(config: ModelConfig, seed: int = 0, dtype: type = np.float32) -> dict[str, np.ndarray]:
    """Hand-built weights in Hugging Face names, scaled like a trained model's (unit-gain norms,
    1/sqrt(fan_in) linears) so logits are O(1) and argmaxes are not ties."""
    rng = np.random.default_rng(seed)
    tensors = {}
    for name, shape in expected_shapes(config).items():
        if len(shape) == 1:
            tensors[name] = (1.0 + 0.1 * rng.standard_normal(shape)).astype(dtype)
        else:
            tensors[name] = (rng.standard_normal(shape) / np.sqrt(shape[-1])).astype(dtype)
    return tensors


# ------------------------------------------------------------------------------------------------
# the yardstick


def test_reference_is_causal_a_later_token_never_changes_an_earlier_logit() -> None:
    tensors = random_llama(SMALL)
    ids = [5, 17, 3, 60, 22, 9]
    changed = ids[:4] + [71, 1]
    full, edited = reference.forward_logits(SMALL, tensors, ids), reference.forward_logits(SMALL, tensors, changed)
    assert np.array_equal(full[:4], edited[:4])
    assert not np.allclose(full[4:], edited[4:])


def test_reference_gqa_equals_mha_with_each_kv_head_repeated_for_its_query_group() -> None:
    # Hugging Face repeat_kv: query head h reads kv head h // (n_heads / n_kv_heads).
    gqa = random_llama(SMALL, seed=1)
    mha_config = replace(SMALL, n_kv_heads=SMALL.n_heads)
    mha = dict(gqa)
    hd, group = SMALL.head_dim, SMALL.n_heads // SMALL.n_kv_heads
    for layer in range(SMALL.n_layers):
        for proj in ("k_proj", "v_proj"):
            name = f"model.layers.{layer}.self_attn.{proj}.weight"
            heads = gqa[name].reshape(SMALL.n_kv_heads, hd, SMALL.d_model)
            mha[name] = np.repeat(heads, group, axis=0).reshape(SMALL.n_heads * hd, SMALL.d_model)
    ids = [1, 2, 3, 4, 40, 50, 60]
    np.testing.assert_allclose(
        reference.forward_logits(SMALL, gqa, ids), reference.forward_logits(mha_config, mha, ids), rtol=0, atol=1e-12
    )


def test_reference_rope_makes_attention_depend_on_relative_position_only() -> None:
    rng = np.random.default_rng(2)
    q, k = rng.standard_normal((1, 1, 16)), rng.standard_normal((1, 1, 16))
    dots = []
    for start in (0, 7, 300):
        cos, sin = reference.rope_cos_sin(np.array([start, start + 5]), 16, 10000.0)
        q_at = reference.apply_rope(q, cos[1:], sin[1:])
        k_at = reference.apply_rope(k, cos[:1], sin[:1])
        dots.append(float((q_at * k_at).sum()))
    assert np.allclose(dots, dots[0], rtol=0, atol=1e-12)
    assert not np.isclose(dots[0], float((q * k).sum()))  # and it does rotate


def test_reference_tied_head_is_the_embedding() -> None:
    tied = replace(SMALL, tie_word_embeddings=True)
    tensors = random_llama(tied, seed=3)
    untied = dict(tensors, **{"lm_head.weight": tensors["model.embed_tokens.weight"]})
    ids = [7, 8, 9]
    assert np.array_equal(reference.forward_logits(tied, tensors, ids), reference.forward_logits(SMALL, untied, ids))


def test_reference_reads_fp8_weights_through_their_block_scales() -> None:
    config = ModelConfig(name="fp8", vocab_size=130, d_model=136, n_layers=1, n_heads=4, n_kv_heads=2, d_ff=64)
    plain = random_llama(config, seed=4)
    quantized = dict(plain)
    rng = np.random.default_rng(5)
    for name in [n for n, t in plain.items() if t.ndim == 2]:
        scales = rng.uniform(0.001, 0.01, fp8_scale_shape(plain[name].shape)).astype(np.float32)
        full = np.repeat(np.repeat(scales, 128, axis=0), 128, axis=1)[: plain[name].shape[0], : plain[name].shape[1]]
        codes = (plain[name] / full).astype(ml_dtypes.float8_e4m3fn)
        quantized[name], quantized[name + "_scale_inv"] = codes, scales
        plain[name] = codes.astype(np.float64) * full  # exactly the values the codes and scales stand for
    ids = [3, 129, 64]
    assert np.array_equal(
        reference.forward_logits(config, quantized, ids), reference.forward_logits(config, plain, ids)
    )
