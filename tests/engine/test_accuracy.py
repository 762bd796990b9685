"""Accuracy of vtengine against an independent float64 reference (tests/engine/reference_llama.py).

First the yardstick itself is checked on properties any Llama forward has (causality, GQA as
repeated KV heads, tied head, fp8 block scales), so a wrong reference cannot bless a wrong engine.
Then the engine's f32 activation path is held to it on vt-tiny, on a checkpoint written by
save_checkpoint, and on the model `vtengine export` writes.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
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
    # float64 BLAS on other buffers: equal to rounding (see the tied-head test); a leak moves them by far more
    np.testing.assert_allclose(full[:4], edited[:4], rtol=1e-12, atol=1e-12)
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
    # the float64 reference multiplies through BLAS: same values in other buffers may be added in another
    # order (some BLAS builds choose by alignment), so equal to float64 rounding, not bit for bit
    np.testing.assert_allclose(reference.forward_logits(tied, tensors, ids),
                               reference.forward_logits(SMALL, untied, ids), rtol=1e-12, atol=1e-12)


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
    np.testing.assert_allclose(  # float64 BLAS on other buffers: equal to rounding (see the tied-head test)
        reference.forward_logits(config, quantized, ids), reference.forward_logits(config, plain, ids),
        rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------------------------------------
# the engine's f32 path against the yardstick

TOLERANCE = 1e-4  # max abs logit error, and the reference margin below which a flip is a near tie


def agreement(got: np.ndarray, want: np.ndarray, picked: list[int] | None = None) -> tuple[float, list[int], str]:
    """Compare engine logits ``got`` with reference logits ``want`` ([T, vocab]). ``picked`` are the
    tokens the engine chose (default: its argmax). Returns (max abs error, positions of hard flips,
    a verdict for a person)."""
    error = np.abs(got.astype(np.float64) - want)
    worst = np.unravel_index(int(np.argmax(error)), error.shape)
    top2 = np.sort(want, axis=-1)[:, -2:]
    margins = top2[:, 1] - top2[:, 0]
    picked = list(got.argmax(axis=-1)) if picked is None else picked
    flips = [t for t in range(len(want)) if picked[t] != int(want[t].argmax())]
    near = [t for t in flips if margins[t] < TOLERANCE]
    hard = [t for t in flips if margins[t] >= TOLERANCE]
    verdict = (
        f"max abs logit error {error.max():.3g} at position {worst[0]} token {worst[1]} (tolerance {TOLERANCE}); "
        f"argmax {len(want) - len(flips)}/{len(want)} ({len(near)} near-tie, {len(hard)} hard) "
        f"- first hard flip {hard[0] if hard else 'none'}; smallest reference margin {margins.min():.3g}"
    )
    return float(error.max()), hard, verdict


def f32_engine(model):
    from vtengine.engine import Engine
    from vtengine.knobs import Knobs

    return Engine(model, Knobs(act_dtype="f32"))


def test_f32_path_matches_the_float64_reference_on_vt_tiny_over_64_positions() -> None:
    from vtengine.model import load_model

    model = load_model("vt-tiny")
    ids = np.random.default_rng(20261129).integers(0, model.config.vocab_size, 64).tolist()
    got = f32_engine(model).forward_logits(ids)
    want = reference.forward_logits(model.config, model.dequantized_tensors(), ids)
    error, hard, verdict = agreement(got, want)
    assert error <= TOLERANCE and not hard, verdict


def test_f32_greedy_chain_on_vt_tiny_is_the_references_argmax_at_every_step() -> None:
    # Incremental decode over the paged cache, 64 greedy steps; the reference then scores the
    # whole chain in one recompute. Each chosen token must be the reference's argmax (near ties aside).
    from vtengine.model import load_model
    from vtengine.tokenizer import encode

    model = load_model("vt-tiny")
    prompt = encode("The reference engine")
    generation = f32_engine(model).generate(prompt, 64)
    chain = prompt + generation.tokens
    want = reference.forward_logits(model.config, model.dequantized_tensors(), chain[:-1])[len(prompt) - 1 :]
    error, hard, verdict = agreement(generation.logits, want, picked=generation.tokens)
    assert error <= TOLERANCE and not hard, verdict
    assert len(set(generation.tokens)) > 4, f"degenerate chain {generation.tokens}"  # a real test of argmax


def test_a_checkpoint_saved_from_hand_built_tensors_runs_in_the_engine_like_the_reference(tmp_path: Path) -> None:
    # The Hugging Face conventions end to end: names, [out, in] layouts, GQA grouping, RoPE halves,
    # theta, eps and tying come from the files, and the engine must compute what the reference does
    # on the very tensors that were written.
    from vtengine.checkpoint import save_checkpoint
    from vtengine.model import load_model

    cases = {
        "f32-gqa": (ModelConfig(name="a", vocab_size=200, d_model=64, n_layers=2, n_heads=8, n_kv_heads=2, d_ff=96),
                    np.float32),
        "bf16-tied-theta": (ModelConfig(name="b", vocab_size=150, d_model=48, n_layers=3, n_heads=3, n_kv_heads=1,
                                        d_ff=80, rope_theta=500000.0, rms_norm_eps=1e-6, tie_word_embeddings=True),
                            ml_dtypes.bfloat16),
    }
    ids = np.random.default_rng(3).integers(0, 150, 48).tolist()
    for label, (config, dtype) in cases.items():
        tensors = random_llama(config, seed=11, dtype=dtype)
        save_checkpoint(tmp_path / label, config, tensors)
        got = f32_engine(load_model(str(tmp_path / label))).forward_logits(ids)
        want = reference.forward_logits(config, tensors, ids)
        error, hard, verdict = agreement(got, want)
        assert error <= TOLERANCE and not hard, f"{label}: {verdict}"


def test_an_fp8_block_scaled_checkpoint_runs_in_the_engine_like_the_reference(tmp_path: Path) -> None:
    from vtengine.checkpoint import save_checkpoint
    from vtengine.model import load_model

    config = ModelConfig(name="fp8", vocab_size=260, d_model=136, n_layers=1, n_heads=4, n_kv_heads=2, d_ff=144)
    tensors = random_llama(config, seed=12)
    rng = np.random.default_rng(13)
    for name in [n for n, t in tensors.items() if t.ndim == 2]:
        scales = rng.uniform(0.002, 0.004, fp8_scale_shape(tensors[name].shape)).astype(np.float32)
        full = np.repeat(np.repeat(scales, 128, axis=0), 128, axis=1)[: tensors[name].shape[0], : tensors[name].shape[1]]
        tensors[name] = np.clip(tensors[name] / full, -448, 448).astype(ml_dtypes.float8_e4m3fn)
        tensors[name + "_scale_inv"] = scales
    save_checkpoint(tmp_path / "fp8", config, tensors)
    model = load_model(str(tmp_path / "fp8"))
    ids = np.random.default_rng(4).integers(0, 260, 40).tolist()
    got = f32_engine(model).forward_logits(ids)
    # The engine holds fp8 weights as float32(code) * scale rounded to bf16 (its weight format); the
    # reference is given exactly those values, so only the arithmetic is compared.
    want = reference.forward_logits(config, model.dequantized_tensors(), ids)
    error, hard, verdict = agreement(got, want)
    assert error <= TOLERANCE and not hard, verdict


def exported_logits_match_embedded(export_dir: Path, model, act_dtype: str) -> None:
    from vtengine.engine import Engine
    from vtengine.knobs import Knobs
    from vtengine.model import load_model

    ids = np.random.default_rng(5).integers(0, model.config.vocab_size, 32).tolist()
    embedded = Engine(model, Knobs(act_dtype=act_dtype)).forward_logits(ids)
    exported = Engine(load_model(str(export_dir)), Knobs(act_dtype=act_dtype)).forward_logits(ids)
    differing = int((embedded != exported).sum())
    assert differing == 0, f"act_dtype={act_dtype}: {differing} of {embedded.size} logits differ after export"


def test_vtengine_export_writes_a_checkpoint_that_reproduces_vt_tiny_logits_to_the_bit(tmp_path: Path) -> None:
    # `vtengine export` writes the dequantized tensors: the exact float32 values the embedded model
    # computes with. Loaded back as a checkpoint they must reproduce its logits to the bit, in the
    # bf16 engine and in the f32 path, and the file must be a plain HF Llama checkpoint.
    from vtengine.checkpoint import load_checkpoint
    from vtengine.model import load_model

    done = subprocess.run(
        [sys.executable, "-m", "vtengine", "export", "vt-tiny", str(tmp_path / "vt-tiny-hf")],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    model = load_model("vt-tiny")
    config, tensors = load_checkpoint(tmp_path / "vt-tiny-hf")
    assert replace(config, name=model.config.name) == model.config
    assert all(t.dtype == np.float32 for t in tensors.values())
    for act_dtype in ("bf16", "f32"):
        exported_logits_match_embedded(tmp_path / "vt-tiny-hf", model, act_dtype)

