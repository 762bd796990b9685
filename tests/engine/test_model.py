"""vt-tiny: the same bits on every machine, the disk cache, non-degenerate chains, and Model's
contract with checkpoints (HF names, shapes, dtypes, dequantized tensors)."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from vtengine import tokenizer
from vtengine.config import VT_TINY
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import Model, ModelError, embedded_model, generate_tensors, load_model

# The portability pin: sha256 over vt-tiny's stored fp8 codes and scales (and norm weights). The
# generator uses only PCG64 integers and exact float ops, so this holds on every machine; it moves
# only when GENERATOR_VERSION (and the disk-cache key) moves.
VT_TINY_WEIGHTS_SHA256 = "fe95b5b268e026fe9298ef9728a45c850351598262fb4c2ac898ee9e9ee88f27"


def test_vt_tiny_weights_have_the_pinned_digest(tmp_path: Path) -> None:
    fresh = embedded_model("vt-tiny", tmp_path)  # generated now, not read from any cache
    assert fresh.digest() == VT_TINY_WEIGHTS_SHA256


def test_the_disk_cache_is_written_atomically_and_reloads_the_same_bits(tmp_path: Path) -> None:
    first = embedded_model("vt-tiny", tmp_path)
    files = list(tmp_path.iterdir())
    assert len(files) == 1 and files[0].suffix == ".npz", files  # no temporary left behind
    second = embedded_model("vt-tiny", tmp_path)
    assert second.digest() == first.digest()


def test_a_damaged_cache_file_is_regenerated(tmp_path: Path) -> None:
    embedded_model("vt-tiny", tmp_path)
    (cached,) = tmp_path.iterdir()
    cached.write_bytes(b"not a zip")
    assert embedded_model("vt-tiny", tmp_path).digest() == VT_TINY_WEIGHTS_SHA256


def test_generated_weights_depend_on_the_seed() -> None:
    from dataclasses import replace

    a = generate_tensors(VT_TINY)["model.layers.0.self_attn.q_proj.weight"]
    b = generate_tensors(replace(VT_TINY, seed=VT_TINY.seed + 1))["model.layers.0.self_attn.q_proj.weight"]
    assert not np.array_equal(a, b)


@pytest.mark.parametrize("prompt", ["hello", "bench", "1 2 3"])
def test_greedy_chains_are_not_degenerate_from_the_first_token(tiny: Model, prompt: str) -> None:
    gen = Engine(tiny, Knobs()).generate(tokenizer.encode(prompt), 12)
    assert len(set(gen.tokens[:6])) >= 4, gen.tokens


def test_different_prompts_give_different_chains(tiny: Model) -> None:
    engine = Engine(tiny, Knobs())
    chains = {tuple(engine.generate(tokenizer.encode(p), 6).tokens) for p in ("a", "b", "hello", "bench")}
    assert len(chains) == 4


def test_dequantized_tensors_use_hf_names_and_shapes(tiny: Model) -> None:
    tensors = tiny.dequantized_tensors()
    assert tensors["model.embed_tokens.weight"].shape == (512, 256)
    assert tensors["model.layers.3.self_attn.k_proj.weight"].shape == (64, 256)  # [out, in]
    assert tensors["model.layers.0.mlp.down_proj.weight"].shape == (256, 768)
    assert tensors["lm_head.weight"].shape == (512, 256)
    assert all(t.dtype == np.float32 for t in tensors.values())
    # the values are bf16 (fp8 * scale rounded to bf16)
    q = tensors["model.layers.0.self_attn.q_proj.weight"]
    assert np.array_equal(q, q.astype(ml_dtypes.bfloat16).astype(np.float32))


def test_a_model_built_from_its_dequantized_tensors_computes_the_same_logits(tiny: Model, prompt_ids: list[int]) -> None:
    rebuilt = Model(tiny.config, tiny.dequantized_tensors())
    a = Engine(tiny, Knobs()).forward_logits(prompt_ids)
    b = Engine(rebuilt, Knobs()).forward_logits(prompt_ids)
    assert np.array_equal(a, b)


def test_missing_tensor_is_named(tiny: Model) -> None:
    tensors = tiny.dequantized_tensors()
    del tensors["model.layers.2.mlp.up_proj.weight"]
    with pytest.raises(ModelError, match="model.layers.2.mlp.up_proj.weight"):
        Model(tiny.config, tensors)


def test_wrong_shape_is_named(tiny: Model) -> None:
    tensors = tiny.dequantized_tensors()
    tensors["model.norm.weight"] = np.ones(3, np.float32)
    with pytest.raises(ModelError, match=r"tensor 'model.norm.weight' has shape \[3\], expected \[256\]"):
        Model(tiny.config, tensors)


def test_fp8_tensor_without_scales_is_refused(tiny: Model) -> None:
    tensors = tiny.dequantized_tensors()
    name = "model.layers.0.self_attn.o_proj.weight"
    tensors[name] = tensors[name].astype(ml_dtypes.float8_e4m3fn)
    with pytest.raises(ModelError, match="scale_inv"):
        Model(tiny.config, tensors)


def test_unsupported_dtype_is_refused(tiny: Model) -> None:
    tensors = tiny.dequantized_tensors()
    tensors["model.norm.weight"] = tensors["model.norm.weight"].astype(np.int32)
    with pytest.raises(ModelError, match="'model.norm.weight' has dtype int32, which vtengine does not load"):
        Model(tiny.config, tensors)


def test_an_unexpected_tensor_is_refused_as_a_checkpoint_would_refuse_it(tiny: Model) -> None:
    tensors = tiny.dequantized_tensors()
    tensors["model.layers.0.self_attn.q_norm.weight"] = np.ones(32, np.float32)
    with pytest.raises(ModelError, match="unexpected tensor 'model.layers.0.self_attn.q_norm.weight'"):
        Model(tiny.config, tensors)


def test_a_damaged_cache_file_with_a_wrong_shape_is_regenerated(tmp_path: Path) -> None:
    embedded_model("vt-tiny", tmp_path)
    (cached,) = tmp_path.iterdir()
    with np.load(cached) as stored:
        arrays = {k: stored[k] for k in stored.files}
    arrays["model.norm.weight"] = arrays["model.norm.weight"][:-1]
    np.savez(cached, **arrays)
    assert embedded_model("vt-tiny", tmp_path).digest() == VT_TINY_WEIGHTS_SHA256


def test_float_checkpoint_weights_keep_their_precision_unless_quantized(tiny: Model) -> None:
    tensors = tiny.dequantized_tensors()
    name = "model.layers.1.mlp.gate_proj.weight"
    tensors[name] = tensors[name] + np.float32(1e-6)  # not representable in bf16
    kept = Model(tiny.config, tensors)
    assert np.array_equal(kept.tensor(name), tensors[name])
    quantized = Model(tiny.config, tensors, quantize=True)
    assert not np.array_equal(quantized.tensor(name), tensors[name])


def test_unknown_model_name_is_a_clear_error() -> None:
    with pytest.raises(ModelError, match="neither an embedded model"):
        load_model("no-such-model")


def test_an_edited_generator_source_is_never_served_the_cached_model(tmp_path: Path) -> None:
    """The disk-cache key covers the generator and quantizer source files: a copy of the engine whose
    quantizer differs by one constant regenerates instead of loading the cached arrays."""
    import shutil
    import subprocess
    import sys

    engine_copy = tmp_path / "engine"
    shutil.copytree(Path(__file__).resolve().parents[2] / "engine" / "vtengine", engine_copy / "vtengine",
                    ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    probe = ("import sys; from vtengine.model import embedded_model; from pathlib import Path; "
             "print(embedded_model('vt-tiny', Path(sys.argv[1])).digest())")

    def digest() -> str:
        done = subprocess.run([sys.executable, "-c", probe, str(cache)], capture_output=True, text=True,
                              env={"PYTHONPATH": str(engine_copy), "PATH": "/usr/bin:/bin"}, check=True)
        return done.stdout.strip()

    assert digest() == VT_TINY_WEIGHTS_SHA256
    numerics = engine_copy / "vtengine" / "numerics.py"
    text = numerics.read_text()
    assert "FP8_MAX = 448.0" in text
    numerics.write_text(text.replace("FP8_MAX = 448.0", "FP8_MAX = 440.0"))  # a changed quantizer clip
    assert digest() != VT_TINY_WEIGHTS_SHA256
    assert len(list(cache.iterdir())) == 2  # one cached model per generator source
    # generation takes its shapes from checkpoint.py (expected_shapes): an edit there is a new key too
    checkpoint = engine_copy / "vtengine" / "checkpoint.py"
    checkpoint.write_text(checkpoint.read_text() + "\n# edited\n")
    digest()
    assert len(list(cache.iterdir())) == 3
