"""Properties of the engine's surfaces that are not kernels: the checkpoint reader, the tokenizer,
knob parsing, the stage profiler, the CLI's exit codes and long contexts. The property layer
(:mod:`vtengine.properties`) draws shapes and knobs for the numerics; these families draw the inputs
of everything around them, each checked against a spec written here from the docs (what a user
reads), never against the code under test:

- **checkpoint**: seeded Llama configs (GQA, widths across fp8 block edges, tied heads, long
  contexts), each stored in float32, float16, bfloat16 or fp8 with block scales, in one file or 2-3
  shards, with config.json in the transformers 4 or 5 layout or a minimal one that leaves every
  optional key to its documented default, with derived ``inv_freq`` buffers and a tied head written
  anyway. Read back: the config is the one written (defaults as documented), every tensor has its
  bits and dtype, and the engine's logits on the loaded model equal, bit for bit, those of the same
  tensors handed to ``Model`` directly. Then broken checkpoints: each must be refused with a
  ``CheckpointError`` naming the key or tensor, and a refused save must leave no directory.
- **tokenizer**: seeded texts over ASCII, Latin, CJK, emoji, controls and NUL, and seeded id lists
  with specials, unused ids and invalid UTF-8: the documented byte mapping both ways.
- **knobs**: every knob under every documented spelling (flags: 1/0, true/false, yes/no, on/off in any
  case, spaces ignored, empty = off; integers with spaces; choices in any case) resolves to its
  value; out-of-range and malformed values are refused naming the knob; ``as_env`` round-trips.
- **profile**: calls and tokens per (phase, stage) of ``VT_PROFILE`` through the public decode calls
  (generate, a batch, forward_logits, score) against the architecture's count of each stage.
- **cli**: ``vtengine`` in subprocesses: the documented exit code and the named culprit for each bad
  input, an exported checkpoint decoding the embedded model's tokens, ``--json`` equal to the
  in-process observation, the summary lines, and ``arms --json`` equal to the registry.
- **arms**: the documented precedence over all 32 rows of the five arm flags; one default per kernel.
- **provenance**: the source tree hash of a copy of the package against its definition.
- **calls**: edge inputs of every public decoding call (identical prompts in a batch, a batch of one,
  one token, every n-gram size, refusals) against each call's definition.
- **modelcache**: the embedded model's cache file damaged in nine ways (empty, cut, not an archive,
  wrong arrays) and a folder that cannot be made: regenerated to the same model and rewritten.
- **long**: a model with a 4096-position context scored past position 2048 by the float32 arm
  against the float64 reference (derived tolerance, float32-sized), decoding across 2048 in the
  default arm equal to recompute, and the context limit.

:func:`run` returns counters only (verdict counts, portable across hosts), and a line per failure.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from vtengine import tokenizer
from vtengine.checkpoint import (
    CONFIG_FILE,
    INDEX_FILE,
    SCALE_SUFFIX,
    WEIGHTS_FILE,
    CheckpointError,
    config_to_hf,
    load_checkpoint,
    save_checkpoint,
)
from vtengine.clirunner import WarmCLI
from vtengine.clirunner import cold as cold_cli
from vtengine.config import ModelConfig
from vtengine.engine import Engine
from vtengine.knobs import KnobError, Knobs, child_env, environment, restore_environment, scoped_env, unset
from vtengine.model import Model, QuantizedWeight, generate_tensors, load_model

Failures = list[str]

# -- checkpoint ------------------------------------------------------------------------------------

CHECKPOINT_DTYPES = ("f32", "f16", "bf16", "fp8", "mixed")  # mixed: fp8 matrices, bf16 norms, an f16 embedding
LAYOUTS = ("hf4", "hf5", "minimal")
# What docs/checkpoints.md says a config.json may leave out, and the value it then means.
DEFAULT_ROPE_THETA, DEFAULT_EPS, DEFAULT_CONTEXT = 10000.0, 1e-6, 2048


def draw_checkpoint_config(rng: np.random.Generator, layout: str) -> ModelConfig:
    head_dim = 2 * int(rng.integers(1, 4))
    n_kv, group = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    config = ModelConfig(
        name="ckpt",
        vocab_size=int(rng.choice([7, 130, 300])),  # 130, 300: embeddings across an fp8 block edge
        d_model=n_kv * group * head_dim,
        n_layers=int(rng.choice([1, 2, 11])),  # 11: layer indices of two digits in every tensor name
        n_heads=n_kv * group,
        n_kv_heads=n_kv,
        d_ff=int(rng.choice([3, 8, 130])),
        max_context=int(rng.choice([16, 64, 3000])),
        rope_theta=float(rng.choice([10000.0, 500000.0, 1e6])),
        rms_norm_eps=float(rng.choice([1e-5, 1e-6])),
        tie_word_embeddings=bool(rng.integers(2)),
        seed=int(rng.integers(2**31)),
    )
    if layout == "minimal":  # every optional key left out: the config means its defaults
        config = replace(config, rope_theta=DEFAULT_ROPE_THETA, rms_norm_eps=DEFAULT_EPS,
                         max_context=DEFAULT_CONTEXT, n_kv_heads=config.n_heads)
    return config


def stored_tensors(config: ModelConfig, dtype: str) -> dict[str, np.ndarray]:
    """The config's generated weights as a checkpoint stores them in ``dtype`` (fp8: codes + scales)."""
    tensors = generate_tensors(config)
    if dtype == "f16":
        return {n: t.astype(np.float16) for n, t in tensors.items()}
    if dtype == "bf16":
        return {n: t.astype(ml_dtypes.bfloat16) for n, t in tensors.items()}
    if dtype == "mixed":
        mixed = stored_tensors(config, "fp8")
        for name in list(mixed):
            if name.endswith("norm.weight"):
                mixed[name] = tensors[name].astype(ml_dtypes.bfloat16)
        mixed.pop("model.embed_tokens.weight" + SCALE_SUFFIX, None)
        mixed["model.embed_tokens.weight"] = tensors["model.embed_tokens.weight"].astype(np.float16)
        return mixed
    if dtype == "fp8":
        quantized = Model(config, tensors, quantize=True)
        out: dict[str, np.ndarray] = {}
        for name, weight in quantized.weights.items():
            if isinstance(weight, QuantizedWeight):
                out[name] = weight.codes.view(ml_dtypes.float8_e4m3fn)
                out[name + SCALE_SUFFIX] = weight.scales
            else:
                out[name] = weight
        return out
    return tensors


def _hf(config: ModelConfig, layout: str) -> dict[str, Any]:
    hf = config_to_hf(config)
    if layout == "hf5":  # transformers 5: rope settings under rope_parameters
        hf["rope_parameters"] = {"rope_type": "default", "rope_theta": hf.pop("rope_theta")}
        hf.pop("rope_scaling")
    elif layout == "minimal":
        for key in ("rope_theta", "rms_norm_eps", "max_position_embeddings", "num_key_value_heads", "head_dim",
                    "rope_scaling", "hidden_act", "attention_bias", "mlp_bias", "torch_dtype", "use_cache",
                    "tie_word_embeddings" if not config.tie_word_embeddings else "_none"):
            hf.pop(key, None)
    return hf


def write_checkpoint(folder: Path, config: ModelConfig, tensors: dict[str, np.ndarray], layout: str, shards: int,
                     extras: bool) -> Path:
    """A checkpoint directory written by hand (not by save_checkpoint): config.json in ``layout``,
    the tensors in ``shards`` files (with an index when more than one), and when ``extras`` the
    derived rotary buffers older exports carry and, for a tied model, the head written anyway."""
    from safetensors.numpy import save_file

    folder.mkdir(parents=True)
    (folder / CONFIG_FILE).write_text(json.dumps(_hf(config, layout)))
    written = dict(tensors)
    if extras:
        half = config.head_dim // 2
        for i in range(config.n_layers):
            written[f"model.layers.{i}.self_attn.rotary_emb.inv_freq"] = np.ones(half, np.float32)
        if config.tie_word_embeddings:
            written["lm_head.weight"] = tensors["model.embed_tokens.weight"].copy()
    names = sorted(written)
    if shards == 1:
        save_file({n: np.ascontiguousarray(written[n]) for n in names}, str(folder / WEIGHTS_FILE))
        return folder
    weight_map = {}
    for s in range(shards):
        part = names[s::shards]
        file = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        save_file({n: np.ascontiguousarray(written[n]) for n in part}, str(folder / file))
        weight_map.update(dict.fromkeys(part, file))
    (folder / INDEX_FILE).write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    return folder


def _relaid(tensor: np.ndarray, kind: int) -> np.ndarray:
    """The same values in another memory layout: C order (kind 0), Fortran order (1), or a strided
    view every other row of a larger array (2). What a checkpoint stores is the values."""
    if kind == 1:
        return np.asfortranarray(tensor)
    if kind == 2:
        wider = np.zeros((2 * tensor.shape[0], *tensor.shape[1:]), tensor.dtype)
        wider[::2] = tensor
        return wider[::2]
    return tensor


def _logits(model: Model, ids: list[int]) -> np.ndarray:
    engine = Engine(model, Knobs())
    try:
        return engine.forward_logits(ids)
    finally:
        engine.close()


def _safetensors_metadata(directory: Path) -> dict[str, Any]:
    """Each .safetensors file of ``directory`` -> the metadata of its header (None when it has none)."""
    from safetensors import safe_open

    found: dict[str, Any] = {}
    for file in sorted(directory.glob("*.safetensors")):
        with safe_open(str(file), framework="numpy") as handle:
            found[file.name] = handle.metadata()
    return found


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def _fields(config: ModelConfig) -> dict[str, Any]:
    return {k: v for k, v in config.as_dict().items() if k not in ("name", "seed")}


def checkpoint_roundtrips(seed: int, count: int, root: Path) -> tuple[dict[str, int], Failures]:
    rng = np.random.Generator(np.random.PCG64(seed))
    counts = {"checkpoint_drawn": 0, "checkpoint_config_ok": 0, "checkpoint_tensors_ok": 0, "checkpoint_logits_ok": 0,
              "config_dict_ok": 0, "checkpoint_saved_ok": 0}
    failures: Failures = []
    for i in range(count):
        layout = LAYOUTS[i % len(LAYOUTS)]
        dtype = CHECKPOINT_DTYPES[(i // len(LAYOUTS)) % len(CHECKPOINT_DTYPES)]
        config = draw_checkpoint_config(rng, layout)
        shards, extras = int(rng.integers(1, 4)), bool(rng.integers(2))
        label = f"checkpoint {i} ({dtype}, {layout}, {shards} shard(s){', extras' if extras else ''})"
        counts["checkpoint_drawn"] += 1
        if ModelConfig(**config.as_dict()) == config:  # as_dict names every field (the cache key uses it)
            counts["config_dict_ok"] += 1
        else:
            failures.append(f"{label}: ModelConfig(**as_dict()) is not the config: {config.as_dict()}")
        tensors = stored_tensors(config, dtype)
        try:
            directory = write_checkpoint(root / f"c{i}", config, tensors, layout, shards, extras)
            read_config, read = load_checkpoint(directory)
            loaded = load_model(str(directory))
        except Exception as error:  # noqa: BLE001 - a refusal of a valid checkpoint is the verdict
            failures.append(f"{label}: refused: {type(error).__name__}: {str(error).splitlines()[0]}")
            continue
        if _fields(read_config) == _fields(config) and read_config.name == str(directory) == loaded.config.name:
            counts["checkpoint_config_ok"] += 1
        else:
            diff: dict[str, tuple[Any, ...]] = {
                k: (v, _fields(config)[k]) for k, v in _fields(read_config).items() if v != _fields(config)[k]}
            if read_config.name != str(directory) or loaded.config.name != str(directory):
                diff["name"] = (read_config.name, loaded.config.name, str(directory))
            failures.append(f"{label}: config read as (read, written) {diff}")
        if sorted(read) == sorted(tensors) and all(_same_bits(read[n], tensors[n]) for n in tensors):
            counts["checkpoint_tensors_ok"] += 1
        else:
            failures.append(f"{label}: tensors differ: {sorted(set(read) ^ set(tensors)) or 'bits or dtype'}")
        # save_checkpoint of the same tensors handed over in drawn memory layouts reads back bit for bit,
        # with the config (the round trip a user's export makes).
        laid = {n: _relaid(t, int(rng.integers(3))) for n, t in tensors.items()}
        try:
            written_to = Path(save_checkpoint(root / f"s{i}", config, laid))
            saved_config, saved = load_checkpoint(written_to)
            mode = written_to.stat().st_mode & 0o777
            headers = _safetensors_metadata(written_to)
            if _fields(saved_config) == _fields(config) and sorted(saved) == sorted(tensors) \
                    and all(_same_bits(saved[n], tensors[n]) for n in tensors) and mode == 0o755 \
                    and headers and all(m == {"format": "pt"} for m in headers.values()):
                counts["checkpoint_saved_ok"] += 1
            elif mode != 0o755:
                failures.append(f"{label}: save_checkpoint made its directory mode {mode:#o}, not 0o755")
            elif not headers or any(m != {"format": "pt"} for m in headers.values()):
                failures.append(f"{label}: save_checkpoint's safetensors metadata is {headers}, not "
                                "{'format': 'pt'} in every file (docs/checkpoints.md)")
            else:
                failures.append(f"{label}: save_checkpoint then load_checkpoint is not the config and tensors saved")
        except Exception as error:  # noqa: BLE001 - a refusal of valid tensors is the verdict
            failures.append(f"{label}: save_checkpoint round trip: {type(error).__name__}: "
                            f"{str(error).splitlines()[0] if str(error) else ''}")
        ids = rng.integers(0, config.vocab_size, int(rng.integers(1, 9))).tolist()
        direct = _logits(Model(config, tensors), ids)
        if _same_bits(_logits(loaded, ids), direct):
            counts["checkpoint_logits_ok"] += 1
        else:
            failures.append(f"{label}: logits of the loaded model differ from the same tensors in memory")
    return counts, failures


def _edit_config(**changes: Any) -> Callable[[Path], None]:
    def edit(directory: Path) -> None:
        hf = json.loads((directory / CONFIG_FILE).read_text())
        for key, value in changes.items():
            if value is _DROP:
                hf.pop(key, None)
            else:
                hf[key] = value
        (directory / CONFIG_FILE).write_text(json.dumps(hf))
    return edit


_DROP = object()


def _edit_tensors(change: Callable[[dict[str, np.ndarray]], None]) -> Callable[[Path], None]:
    def edit(directory: Path) -> None:
        from safetensors.numpy import load_file, save_file

        tensors = dict(load_file(str(directory / WEIGHTS_FILE)))
        change(tensors)
        save_file(tensors, str(directory / WEIGHTS_FILE))
    return edit


def _refusals(config: ModelConfig) -> list[tuple[str, Callable[[Path], None], str]]:
    """(case, how to break a float32 checkpoint of ``config``, what the refusal must name)."""
    layer0 = "model.layers.0.mlp.up_proj.weight"

    def put(name: str, value: Callable[[dict[str, np.ndarray]], np.ndarray]) -> Callable[[Path], None]:
        return _edit_tensors(lambda t: t.__setitem__(name, value(t)))

    def drop(name: str) -> Callable[[Path], None]:
        return _edit_tensors(lambda t: t.__delitem__(name))

    return [
        ("no config.json", lambda d: (d / CONFIG_FILE).unlink(), CONFIG_FILE),
        ("config.json not JSON", lambda d: (d / CONFIG_FILE).write_text("{"), "JSON"),
        ("no weights", lambda d: (d / WEIGHTS_FILE).unlink(), WEIGHTS_FILE),
        ("weights not safetensors", lambda d: (d / WEIGHTS_FILE).write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}"),
         WEIGHTS_FILE),
        ("model_type mistral", _edit_config(model_type="mistral"), "model_type"),
        ("hidden_act gelu", _edit_config(hidden_act="gelu"), "hidden_act"),
        ("attention_bias true", _edit_config(attention_bias=True), "attention_bias"),
        ("mlp_bias true", _edit_config(mlp_bias=True), "mlp_bias"),
        ("rope_scaling linear", _edit_config(rope_scaling={"rope_type": "linear", "factor": 2.0}), "rope_scaling"),
        ("rope_parameters yarn", _edit_config(rope_parameters={"rope_type": "yarn", "factor": 4.0}),
         "rope_parameters"),
        ("head_dim not hidden/heads", _edit_config(head_dim=config.head_dim * 2), "head_dim"),
        ("hidden_size missing", _edit_config(hidden_size=_DROP), "hidden_size"),
        ("intermediate_size 0", _edit_config(intermediate_size=0), "intermediate_size"),
        ("heads not a multiple of kv heads", _edit_config(num_key_value_heads=config.n_heads + 1),
         "num_key_value_heads"),
        # a boolean key takes JSON true or false only: a string, a number or a list is refused as itself
        # (never read for its truthiness: "false" is a non-empty string)
        *[(f"tie_word_embeddings {json.dumps(value)}", _edit_config(tie_word_embeddings=value),
           f"'tie_word_embeddings' is {value!r}") for value in ("false", "true", 0, 1, [False])],
        ("quantization 64x64 blocks", _edit_config(quantization_config={"quant_method": "fp8",
                                                                        "weight_block_size": [64, 64]}),
         "quantization_config"),
        ("a tensor missing", drop(layer0), layer0),
        ("a tensor of the wrong shape", put(layer0, lambda t: t[layer0][:, :-1].copy()), layer0),
        ("an unknown tensor", put("model.layers.0.self_attn.q_norm.weight", lambda t: t["model.norm.weight"]),
         "q_norm"),
        ("a layer past num_hidden_layers", put(f"model.layers.{config.n_layers}.mlp.up_proj.weight",
                                               lambda t: t[layer0]), "num_hidden_layers"),
        # every dtype a safetensors file can hold that vtengine does not load: refused as that, naming
        # the tensor and its code (docs/checkpoints.md), never as an unreadable file
        *[(f"a tensor of dtype {np.dtype(dtype).name}", put(layer0, _cast_to(layer0, dtype)),
           f"'{layer0}' has dtype {code}")
          for dtype, code in ((np.int64, "I64"), (np.int32, "I32"), (np.int16, "I16"), (np.int8, "I8"),
                              (np.uint8, "U8"), (np.float64, "F64"), (np.bool_, "BOOL"))],
        ("fp8 without scales", put(layer0, lambda t: t[layer0].astype(ml_dtypes.float8_e4m3fn)),
         layer0 + SCALE_SUFFIX),
        ("scales beside a float weight", put(layer0 + SCALE_SUFFIX, lambda t: np.ones((1, 1), np.float32)),
         layer0 + SCALE_SUFFIX),
        ("an untied head that is not the embedding", _tied_with_other_head, "lm_head.weight"),
        ("a shard listed but missing", _missing_shard, "model-00002-of-00002.safetensors"),
        ("a tensor in a shard the index does not name", _wrong_shard, "index"),
        *_mistyped(config),
    ]


def _cast_to(name: str, dtype: Any) -> Callable[[dict[str, np.ndarray]], np.ndarray]:
    return lambda tensors: tensors[name].astype(dtype)


# The numeric keys of config.json and the type each must have (docs/checkpoints.md). JSON's true is
# not a number here even though Python's bool is an int: a config that says true means a mistake.
INT_KEYS = ("hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
            "vocab_size", "max_position_embeddings")
FLOAT_KEYS = ("rms_norm_eps", "rope_theta")


def _mistyped(config: ModelConfig) -> list[tuple[str, Callable[[Path], None], str]]:
    """Every numeric key of config.json given a value of each wrong JSON type: a boolean, the number
    as a string, the number in a list. Each must be refused naming the key, the value and its type
    (a later check tripping over the value by chance is not the refusal)."""
    hf = config_to_hf(config)
    cases = []
    for key in (*INT_KEYS, *FLOAT_KEYS):
        number = hf[key]
        for value in (True, str(number), [number]):
            cases.append((f"{key} {json.dumps(value)}", _edit_config(**{key: value}),
                          f"'{key}' is {value!r} ({type(value).__name__})"))
    return cases


def _tied_with_other_head(directory: Path) -> None:
    _edit_config(tie_word_embeddings=True)(directory)


def _split(directory: Path) -> dict[str, str]:
    from safetensors.numpy import load_file, save_file

    tensors = dict(load_file(str(directory / WEIGHTS_FILE)))
    (directory / WEIGHTS_FILE).unlink()
    names = sorted(tensors)
    weight_map = {}
    for s, part in enumerate((names[::2], names[1::2])):
        file = f"model-{s + 1:05d}-of-00002.safetensors"
        save_file({n: tensors[n] for n in part}, str(directory / file))
        weight_map.update(dict.fromkeys(part, file))
    (directory / INDEX_FILE).write_text(json.dumps({"weight_map": weight_map}))
    return weight_map


def _missing_shard(directory: Path) -> None:
    _split(directory)
    (directory / "model-00002-of-00002.safetensors").unlink()


def _wrong_shard(directory: Path) -> None:
    weight_map = _split(directory)
    name = next(n for n, f in weight_map.items() if f.startswith("model-00001"))
    weight_map[name] = "model-00002-of-00002.safetensors"
    (directory / INDEX_FILE).write_text(json.dumps({"weight_map": weight_map}))


def checkpoint_refusals(root: Path) -> tuple[dict[str, int], Failures]:
    config = ModelConfig(name="refuse", vocab_size=7, d_model=8, n_layers=2, n_heads=2, n_kv_heads=1, d_ff=6,
                         max_context=16, seed=5)
    base = root / "refusal-base"
    save_checkpoint(base, config, generate_tensors(config))
    cases = _refusals(config)
    counts = {"refusal_cases": len(cases), "refusal_ok": 0}
    failures: Failures = []
    import shutil

    for i, (label, breaks, named) in enumerate(cases):
        directory = root / f"refusal-{i}"
        shutil.copytree(base, directory)
        breaks(directory)
        try:
            load_checkpoint(directory)
        except CheckpointError as error:
            # the message is the cause's own: a file safetensors reads is never called unreadable
            if named in str(error) and ("not a readable" not in str(error) or label == "weights not safetensors"):
                counts["refusal_ok"] += 1
            elif named in str(error):
                failures.append(f"refusal '{label}': a readable file called unreadable: {str(error).splitlines()[0]}")
            else:
                failures.append(f"refusal '{label}': the message does not name {named!r}: {str(error).splitlines()[0]}")
            continue
        except Exception as error:  # noqa: BLE001 - another error type is a finding too
            failures.append(f"refusal '{label}': {type(error).__name__} instead of CheckpointError: {error}")
            continue
        failures.append(f"refusal '{label}': accepted")
    # A single file beside an index: the single file wins (docs/checkpoints.md, as in transformers),
    # whether the index is stale (its shard gone) or its shards hold other values.
    counts["checkpoint_precedence_ok"] = 0
    own = generate_tensors(config)
    other = generate_tensors(replace(config, seed=config.seed + 1))
    for k, (label, shard_values) in enumerate((("a stale index (its shard gone)", None),
                                               ("shards of other values", other))):
        directory = root / f"precedence-{k}"
        shutil.copytree(base, directory)
        shard = "model-00001-of-00001.safetensors"
        (directory / INDEX_FILE).write_text(json.dumps({"metadata": {}, "weight_map": dict.fromkeys(own, shard)}))
        if shard_values is not None:
            from safetensors.numpy import save_file

            save_file(shard_values, str(directory / shard), metadata={"format": "pt"})
        try:
            read = load_checkpoint(directory)[1]
            wins = sorted(read) == sorted(own) and all(_same_bits(read[n], own[n]) for n in own)
            why = "other tensors"
        except Exception as error:  # noqa: BLE001 - a refusal of a readable single file is the finding
            wins, why = False, f"{type(error).__name__}: {str(error).splitlines()[0]}"
        counts["checkpoint_precedence_ok"] += int(wins)
        if not wins:
            failures.append(f"checkpoint precedence, a single file beside {label}: the single file was not read "
                            f"({why})")
    # The plain rotary embedding in every spelling transformers has written (docs/checkpoints.md):
    # rope_scaling null, its kind under rope_type, under the older key type, or under both (4.4x), and
    # rope_parameters with either key. Each loads as the same model; only real scaling is refused.
    counts["checkpoint_plain_rope_ok"] = 0
    base_config, base_tensors = load_checkpoint(base)
    theta = config_to_hf(config)["rope_theta"]
    plain: list[tuple[str, dict[str, Any]]] = [("rope_scaling null", {"rope_scaling": None}),
             ("rope_scaling rope_type default", {"rope_scaling": {"rope_type": "default"}}),
             ("rope_scaling type default (the older key)", {"rope_scaling": {"type": "default"}}),
             ("rope_scaling with both keys", {"rope_scaling": {"rope_type": "default", "type": "default"}}),
             ("rope_parameters type default", {"rope_parameters": {"type": "default", "rope_theta": theta},
                                               "rope_theta": _DROP})]
    for k, (label, changes) in enumerate(plain):
        directory = root / f"plain-rope-{k}"
        shutil.copytree(base, directory)
        _edit_config(**changes)(directory)
        try:
            read_config, read = load_checkpoint(directory)
            same = replace(read_config, name=base_config.name) == base_config and sorted(read) == sorted(base_tensors) \
                and all(_same_bits(read[n], base_tensors[n]) for n in base_tensors)
            why = "another config or other tensors"
        except Exception as error:  # noqa: BLE001 - a refusal of a plain RoPE config is the finding
            same, why = False, f"{type(error).__name__}: {str(error).splitlines()[0]}"
        counts["checkpoint_plain_rope_ok"] += int(same)
        if not same:
            failures.append(f"checkpoint, plain RoPE as {label}: not loaded as the same model ({why})")
    # save_checkpoint renames its staging folder into place from beside the target (docs/checkpoints.md:
    # a temporary sibling directory), for a new checkpoint and for one it overwrites.
    counts["checkpoint_save_rename_ok"] = 0
    landed = root / "renamed-save"
    for overwrite in (False, True):
        said = _landed_beside(_renames(functools.partial(save_checkpoint, landed, config, own, overwrite=overwrite)),
                              landed)
        counts["checkpoint_save_rename_ok"] += int(said == "ok")
        if said != "ok":
            failures.append(f"save_checkpoint (overwrite={overwrite}): {said}")
    # A save refused for a bad tensor set leaves nothing behind, and never replaces a good checkpoint.
    target = root / "refused-save"
    bad = {n: t for n, t in generate_tensors(config).items() if n != "model.norm.weight"}
    counts["refused_save_ok"] = 0
    try:
        save_checkpoint(target, config, bad)
        failures.append("save_checkpoint accepted a tensor set without model.norm.weight")
    except CheckpointError:
        if not target.exists() and not [p for p in root.iterdir() if p.name.startswith(".refused-save")]:
            counts["refused_save_ok"] = 1
        else:
            failures.append("a refused save_checkpoint left files behind")
    return counts, failures


# -- tokenizer -------------------------------------------------------------------------------------

ALPHABET = [*"abcxyz ABC0129.,!?\n\t", "\x00", "\x7f", "é", "ß", "ñ", "Ω", "中", "文", "字", "😀", "🚀", "\u200b"]


def spec_decode(ids: list[int]) -> str:
    """The documented decode: runs of byte ids as UTF-8 with U+FFFD for invalid sequences; <bos>,
    <eos>, <pad> for 256-258 and <N> for any other id."""
    names = {256: "<bos>", 257: "<eos>", 258: "<pad>"}
    out, run = [], bytearray()
    for token in ids:
        if 0 <= token < 256:
            run.append(token)
            continue
        out.append(run.decode("utf-8", "replace"))
        run = bytearray()
        out.append(names.get(token, f"<{token}>"))
    out.append(run.decode("utf-8", "replace"))
    return "".join(out)


def tokenizer_properties(seed: int, count: int) -> tuple[dict[str, int], Failures]:
    rng = np.random.Generator(np.random.PCG64(seed))
    counts = {"tokenizer_texts": 0, "tokenizer_texts_ok": 0, "tokenizer_ids": 0, "tokenizer_ids_ok": 0,
              "tokenizer_vocab_ok": 0}
    failures: Failures = []
    for i in range(count):
        text = "".join(ALPHABET[int(k)] for k in rng.integers(0, len(ALPHABET), int(rng.integers(0, 24))))
        data = list(text.encode("utf-8"))
        counts["tokenizer_texts"] += 1
        checks = [tokenizer.encode(text) == [256, *data], tokenizer.encode(text, bos=False) == data,
                  tokenizer.decode(tokenizer.encode(text, bos=False)) == text,
                  tokenizer.decode(tokenizer.encode(text)) == "<bos>" + text]
        if all(checks):
            counts["tokenizer_texts_ok"] += 1
        else:
            failures.append(f"tokenizer text {i} {text!r}: checks {checks}")
        ids = rng.integers(-3, 300, int(rng.integers(0, 16))).tolist()  # negative ids are "any other id" too
        ids += rng.choice([0xC3, 0xE4, 0xF0, 0x80, 0xFF, 256, 257, 258], int(rng.integers(0, 4))).tolist()
        rng.shuffle(ids)
        ids = [int(t) for t in ids]
        counts["tokenizer_ids"] += 1
        try:
            decoded = tokenizer.decode(ids)
        except Exception as error:  # noqa: BLE001 - decode takes any id list (docs/engine.md)
            decoded = f"{type(error).__name__}: {error}"
        if decoded == spec_decode(ids):
            counts["tokenizer_ids_ok"] += 1
        else:
            failures.append(f"tokenizer ids {ids}: decoded {decoded!r}, documented {spec_decode(ids)!r}")
    for size, refused in ((258, True), (259, False), (512, False)):
        try:
            tokenizer.check_vocab(size, "m")
            ok = not refused
        except tokenizer.VocabError as error:
            ok = refused and "259" in str(error)
        counts["tokenizer_vocab_ok"] += int(ok)
        if not ok:
            failures.append(f"tokenizer check_vocab({size}): {'accepted' if refused else 'refused'}")
    return counts, failures


# -- knobs -----------------------------------------------------------------------------------------

TRUE_SPELLINGS = ("1", "true", "TRUE", "True", "yes", "YES", "on", "On", " 1 ", "\ttrue\n")
FALSE_SPELLINGS = ("0", "false", "FALSE", "no", "No", "off", "OFF", "", " 0 ", "  ")
FLAGS = {"VT_CPU_PAGED_ATTN_SCALAR_FMA": "paged_attn_scalar_fma", "VT_CPU_PAGED_ATTN_BFDOT": "paged_attn_bfdot",
         "VT_CPU_GEMV_BF16_DOT": "gemv_bf16_dot", "VT_CPU_GEMV_BLAS": "gemv_blas", "VT_PROFILE": "profile"}
# integer knob -> (field, documented minimum)
INTEGERS = {"VT_DEQUANT_CACHE_MB": ("dequant_cache_mb", 0), "VT_KV_BLOCK_SIZE": ("kv_block_size", 1),
            "VT_CPU_THREADS": ("cpu_threads", 1)}
CHOICES = {"VT_DEQUANT_CACHE_POLICY": ("dequant_cache_policy", ("lru", "pin")),
           "VT_ACT_DTYPE": ("act_dtype", ("bf16", "f32"))}
DEFAULT_KNOBS = {"dequant_cache_mb": 64, "dequant_cache_policy": "lru", "act_dtype": "bf16", "kv_block_size": 16,
                 "cpu_threads": 1, "paged_attn_scalar_fma": False, "paged_attn_bfdot": False,
                 "gemv_bf16_dot": False, "gemv_blas": False, "profile": False, "cache_dir": "~/.cache/vtengine"}
ALL_KNOBS = (*FLAGS, *INTEGERS, *CHOICES, "VT_CACHE_DIR")


def _resolve(values: dict[str, str]) -> Knobs | KnobError:
    """Knobs.from_env with exactly ``values`` set among the VT_* knobs (the others unset); an error
    other than KnobError comes back as a KnobError that names no knob (so the case fails)."""
    try:
        with unset(ALL_KNOBS), scoped_env(values):
            return Knobs.from_env()
    except Exception as error:  # noqa: BLE001 - a parser raising anything but KnobError is a finding
        return error if isinstance(error, KnobError) else KnobError(f"not a KnobError: {error!r}")


def knob_properties(seed: int) -> tuple[dict[str, int], Failures]:
    rng = np.random.Generator(np.random.PCG64(seed))
    cases: list[tuple[dict[str, str], dict[str, Any] | str]] = [({}, {})]  # (env, changed fields | refused knob)
    for name, field in FLAGS.items():
        cases += [({name: s}, {field: True}) for s in TRUE_SPELLINGS]
        cases += [({name: s}, {field: False}) for s in FALSE_SPELLINGS]
        cases += [({name: s}, name) for s in ("2", "maybe", "enabled", "-1")]
    for name, (field, lowest) in INTEGERS.items():
        cases += [({name: f" {v} " if k % 2 else str(v)}, {field: v})
                  for k, v in enumerate((lowest, lowest + 1, 7, 1024))]
        cases += [({name: s}, name) for s in (str(lowest - 1), "1.5", "abc", "", "0x10")]
    for name, (field, choices) in CHOICES.items():
        for choice in choices:
            cases += [({name: s}, {field: choice}) for s in (choice, choice.upper(), f" {choice} ")]
        cases += [({name: s}, name) for s in ("", "fp16", "lru,pin", "pinned")]
    cases.append(({"VT_CACHE_DIR": "/tmp/x y"}, {"cache_dir": "/tmp/x y"}))
    counts = {"knob_cases": len(cases), "knob_cases_ok": 0, "knob_rows_round_trip": 0}
    failures: Failures = []
    # VT_CACHE_DIR's documented default is ~/.cache/vtengine: a leading ~ is the user's home, never
    # a folder named "~" in the working directory.
    homes: tuple[tuple[dict[str, str], Path], ...] = (({"VT_CACHE_DIR": "~/vt-x"}, Path.home() / "vt-x"),
                                                      ({}, Path.home() / ".cache" / "vtengine"))
    for env, meant in homes:
        spelled = env.get("VT_CACHE_DIR", "(unset)")
        got_path = _resolve(env)
        ok = isinstance(got_path, Knobs) and got_path.cache_path == meant
        counts["knob_cases"] += 1
        counts["knob_cases_ok"] += int(ok)
        if not ok:
            failures.append(f"knobs VT_CACHE_DIR={spelled!r}: cache_path is not {meant}: "
                            f"{got_path.cache_path if isinstance(got_path, Knobs) else got_path!r}")
    for env, expected in cases:
        got = _resolve(env)
        if isinstance(expected, str):
            ok = isinstance(got, KnobError) and expected in str(got)
        else:
            ok = isinstance(got, Knobs) and {f: getattr(got, f) for f in DEFAULT_KNOBS} == {**DEFAULT_KNOBS, **expected}
        counts["knob_cases_ok"] += int(ok)
        if not ok:
            failures.append(f"knobs {env!r}: expected {expected!r}, got {got!r}")
    # Random complete rows: a Knobs record's as_env() resolves back to the same record.
    for _ in range(12):
        row: dict[str, Any] = {f: bool(rng.integers(2)) for f in FLAGS.values()}
        row.update({f: int(rng.integers(lo, lo + 40)) for f, lo in INTEGERS.values()})
        row.update({f: str(rng.choice(c)) for f, c in CHOICES.values()})
        knobs = Knobs(**row, cache_dir=f"/tmp/vt-{int(rng.integers(100))}")
        env = knobs.as_env()
        again = _resolve(env)
        # as_env is what observations' meta.knobs record (docs/contracts.md): one canonical spelling
        # per value, so the same knobs always read the same in provenance.
        canonical = {**{name: str(int(row[field])) for name, field in FLAGS.items()},
                     **{name: str(row[field]) for name, (field, _) in INTEGERS.items()},
                     **{name: row[field] for name, (field, _) in CHOICES.items()}, "VT_CACHE_DIR": knobs.cache_dir}
        if again == knobs and env == canonical:
            counts["knob_rows_round_trip"] += 1
        else:
            failures.append(f"knobs as_env round trip: {knobs!r} -> {env!r} -> {again!r} (canonical: {canonical!r})")
    return counts, failures


# -- profile ---------------------------------------------------------------------------------------


def stage_calls(config: ModelConfig, forwards: int) -> dict[str, int]:
    """Calls each profiled stage makes in ``forwards`` forward passes of a Llama model: per layer two
    norms, four linears (qkv, o, gate_up, down), one rope, one KV write, one attention, one SwiGLU;
    per pass one embedding, the final norm, the LM head; a weight fetch per linear, the embedding and
    the head."""
    L = config.n_layers
    per = {"embed": 1, "norms": 2 * L + 1, "linear": 4 * L, "rope": L, "kv_write": L, "attention": L,
           "mlp_act": L, "lm_head": 1, "dequant": 4 * L + 2}
    return {stage: n * forwards for stage, n in per.items()}


def profile_properties(seed: int) -> tuple[dict[str, int], Failures]:
    rng = np.random.Generator(np.random.PCG64(seed))
    config = ModelConfig(name="prof", vocab_size=11, d_model=8, n_layers=int(rng.integers(1, 4)), n_heads=2,
                         n_kv_heads=1, d_ff=6, max_context=64, seed=int(rng.integers(2**31)))
    model = Model(config, generate_tensors(config))
    prompt = rng.integers(0, 11, int(rng.integers(2, 9))).tolist()
    steps = int(rng.integers(2, 6))
    # (call, forwards in prefill, forwards in decode, tokens in prefill, tokens in decode)
    calls: list[tuple[str, Callable[[Engine], Any], int, int, int, int]] = [
        ("generate", lambda e: e.generate(prompt, steps), 1, steps - 1, len(prompt), steps - 1),
        ("generate_batch of 3", lambda e: e.generate_batch([prompt, prompt[:1], prompt[::-1]], steps), 1, steps - 1,
         2 * len(prompt) + 1, 3 * (steps - 1)),
        ("forward_logits", lambda e: e.forward_logits(prompt), 1, 0, len(prompt), 0),
        ("score", lambda e: e.score(prompt), 1, 0, len(prompt), 0),
    ]
    counts = {"profile_calls": len(calls), "profile_calls_ok": 0, "profile_off_ok": 0}
    failures: Failures = []
    for label, call, pre, dec, pre_tokens, dec_tokens in calls:
        engine = Engine(model, Knobs(profile=True))
        call(engine)
        engine.close()
        prof = engine.prof
        assert prof is not None
        expected = {("prefill", s): n for s, n in stage_calls(config, pre).items()}
        expected.update({("decode", s): n for s, n in stage_calls(config, dec).items() if n})
        got = {k: v for k, v in prof.calls.items() if v}
        tokens = {k: v for k, v in prof.tokens.items() if v}
        want_tokens = {k: v for k, v in (("prefill", pre_tokens), ("decode", dec_tokens)) if v}
        shares_ok = all(abs(sum(float(str(r["share"])) for r in prof.table() if r["phase"] == p) - 1.0) < 1e-9
                        for p in {k[0] for k in got})
        if got == expected and tokens == want_tokens and shares_ok:
            counts["profile_calls_ok"] += 1
        else:
            wrong = {f"{k[0]}.{k[1]}": (got.get(k), n) for k, n in {**expected, **got}.items() if got.get(k) != n}
            failures.append(f"profile {label}: (recorded, expected) {wrong}; tokens {tokens} vs {want_tokens}; "
                            f"shares sum to 1: {shares_ok}")
    off = Engine(model, Knobs(profile=False))
    off.generate(prompt, steps)
    off.close()
    counts["profile_off_ok"] = int(off.prof is None)
    return counts, failures


# -- cli -------------------------------------------------------------------------------------------


def _cli_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a ``vtengine`` subprocess: the run's knobs apply to the CLI as to the
    probes, and the CLI under test is this vtengine (a mutant copy's, a worktree's), first on
    PYTHONPATH, never another one installed on the path."""
    full = child_env({**(env or {}), "CI": "true"})
    here = str(Path(__file__).resolve().parents[1])
    full["PYTHONPATH"] = os.pathsep.join(p for p in (here, full.get("PYTHONPATH", "")) if p)
    return full


def _cli(args: list[str], env: dict[str, str] | None = None, warm: WarmCLI | None = None) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``vtengine args``: forked from a warm interpreter when ``warm`` is
    given and the run's environment is the interpreters' own (:mod:`vtengine.clirunner`), else in a
    fresh ``python -m vtengine``."""
    full = _cli_env(env)
    return warm.run(args, full) if warm is not None else cold_cli(args, full)


# Run in a fresh interpreter whatever the warm ones could do: they show the interpreter's own start-up
# and exit (the version is printed before numpy is imported; an unknown command is click's error).
COLD_CASES = frozenset({"version", "unknown command"})


def _default_sigint() -> None:
    import signal as signals

    signals.signal(signals.SIGINT, signals.SIG_DFL)


def _signalled(sig: int) -> tuple[int | None, str]:
    """``vtengine bench`` on a long chain, sent ``sig`` once its handlers are set and NumPy is mapped
    into it (most often while it decodes): (exit code, stderr)."""
    import signal as signals
    import time

    # runs that fit the context (1,000 tokens after a 16-token prompt), so many that only the signal ends them.
    # The child starts with SIGINT's default action: a probe started in the background by a shell (`nohup
    # vtgate mutate ... &`) inherits SIGINT ignored, which Python keeps ignored, and the case would measure
    # how the probe was started rather than the CLI.
    child = subprocess.Popen([sys.executable, "-m", "vtengine", "bench", "--tokens", "1000", "--runs", "100000"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=_cli_env(),
                             preexec_fn=_default_sigint if os.name == "posix" else None)
    # The signal is sent once the program catches SIGTERM (vtengine.__main__ sets its handlers before
    # any import of its own) and NumPy is mapped. NumPy alone is no sign: a sitecustomize may import it
    # before the program's first line, and a signal then meets the interpreter's start-up, not the CLI.
    proc = Path(f"/proc/{child.pid}")
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and child.poll() is None:
            try:
                caught = int(next(line for line in (proc / "status").read_text().splitlines()
                                  if line.startswith("SigCgt:")).split()[1], 16)
                if caught >> (signals.SIGTERM - 1) & 1 and "numpy" in (proc / "maps").read_text():
                    time.sleep(0.5)
                    break
            except (OSError, StopIteration, ValueError):
                if not proc.exists() and sys.platform == "linux":
                    break
                time.sleep(2.0)  # no /proc: give the interpreter time to start
                break
            time.sleep(0.05)
        child.send_signal(signals.Signals(sig))
        _, err = child.communicate(timeout=60)
        return child.returncode, err
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        return None, "still running 60 s after the signal"


def _ignore_sigterm() -> None:
    import signal as signals

    signals.signal(signals.SIGINT, signals.SIG_DFL)
    signals.signal(signals.SIGTERM, signals.SIG_IGN)


def _ignoring_sigterm() -> tuple[int | None, str]:
    """A short ``vtengine bench`` started with SIGTERM ignored (as ``nohup`` and a shell's background
    jobs start it), sent SIGTERM every 0.1 s until it ends: an ignored signal is the parent's choice,
    so the run finishes (exit 0). (exit code, the end of stderr)."""
    import signal as signals
    import time

    child = subprocess.Popen([sys.executable, "-m", "vtengine", "bench", "--tokens", "24", "--runs", "2"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=_cli_env(),
                             preexec_fn=_ignore_sigterm)
    deadline = time.monotonic() + 120
    while child.poll() is None and time.monotonic() < deadline:
        child.send_signal(signals.SIGTERM)
        time.sleep(0.1)
    if child.poll() is None:
        child.kill()
        child.communicate()
        return None, "still running after 120 s"
    _, err = child.communicate(timeout=60)
    return child.returncode, err.strip()[-200:]


def cli_properties(root: Path, observe: dict[str, Callable[..., Any]]) -> tuple[dict[str, int], Failures]:
    """``observe``: the in-process calls the CLI's JSON is compared with (``generate``,
    ``teacher_forced`` of vtengine.probes, which imports this module, so it passes them in).
    Most runs are forked from two warm interpreters (:mod:`vtengine.clirunner`: the start-up of a
    fresh one is most of a run's time); ``--version``, an unknown command, a run under a knob, the
    first ``generate --json -`` and the signal cases start a fresh ``python -m vtengine``."""
    with WarmCLI(_cli_env(), workers=2) as warm:
        return _cli_checks(root, observe, warm)


def _cli_checks(root: Path, observe: dict[str, Callable[..., Any]], warm: WarmCLI) -> tuple[dict[str, int], Failures]:
    """Each case: (label, args, env, exit code docs/contracts.md gives it, text stderr must hold)."""
    good = root / "cli-export"
    broken = root / "cli-broken"
    config = ModelConfig(name="cli", vocab_size=300, d_model=8, n_layers=1, n_heads=2, n_kv_heads=1, d_ff=6,
                         max_context=32, seed=3)
    save_checkpoint(broken, config, generate_tensors(config))
    _edit_config(hidden_act="gelu")(broken)
    # A model of token ids: its vocab is smaller than the byte tokenizer's 259 ids. Text cannot be
    # encoded for it (a usage error naming the fix); what takes no text (bench's synthetic prompt,
    # score --ids) runs.
    ids_only = root / "cli-ids-only"
    small = replace(config, name="ids", vocab_size=61, seed=5)
    save_checkpoint(ids_only, small, generate_tensors(small))
    cases: list[tuple[str, list[str], dict[str, str], int, str]] = [
        ("version", ["--version"], {}, 0, ""),
        ("unknown command", ["no-such-command"], {}, 2, "no-such-command"),
        ("generate --tokens 0", ["generate", "--prompt", "a", "--tokens", "0"], {}, 2, "--tokens"),
        ("generate past the context", ["generate", "--prompt", "a", "--tokens", "5000"], {}, 2, "context"),
        ("generate a missing model", ["generate", "--prompt", "a", "--model", str(root / "nowhere")], {}, 2,
         "nowhere"),
        ("generate a refused checkpoint", ["generate", "--prompt", "a", "--tokens", "2", "--model", str(broken)], {},
         2, "hidden_act"),
        ("generate under a bad knob", ["generate", "--prompt", "a", "--tokens", "2"], {"VT_KV_BLOCK_SIZE": "0"}, 2,
         "VT_KV_BLOCK_SIZE"),
        ("score an id past the vocab", ["score", "--ids", "1,2,999"], {}, 2, "999"),
        # score takes text (--prompt and --reference) or ids (--ids), never a mix (its --help)
        ("score --ids with --prompt", ["score", "--ids", "1,2", "--prompt", "a"], {}, 2, "not both"),
        ("score --ids with --reference", ["score", "--ids", "1,2", "--reference", "a"], {}, 2, "not both"),
        ("score --prompt alone", ["score", "--prompt", "a"], {}, 2, "--reference"),
        ("score --ids with an empty entry", ["score", "--ids", "5,,17"], {}, 2, "--ids"),
        ("bench past the context", ["bench", "--tokens", "5000"], {}, 2, "context"),
        # bench's own edges: a timed run and its 2-token warm-up must both fit (docs/engine.md), so the
        # first prompt length past the edge for 1, 2 and 3 tokens is a usage error, never an internal one.
        *[(f"bench --prompt-tokens {edge} --tokens {t}, one past the edge",
           ["bench", "--prompt-tokens", str(edge), "--tokens", str(t), "--runs", "1"], {}, 2, "context")
          for t in (1, 2, 3) for edge in [ModelConfig().max_context - max(t, 2) + 2]],
        ("export", ["export", "vt-tiny", str(good)], {}, 0, ""),
        ("generate text on a model of ids", ["generate", "--prompt", "hi", "--tokens", "2", "--model", str(ids_only)],
         {}, 2, "vocab_size 61"),
        ("bench on a model of ids", ["bench", "--model", str(ids_only), "--prompt-tokens", "16", "--tokens", "4",
                                     "--runs", "1"], {}, 0, ""),
        ("score --ids on a model of ids", ["score", "--model", str(ids_only), "--ids", "1,2,60"], {}, 0, ""),
        ("score --ids past a model of ids", ["score", "--model", str(ids_only), "--ids", "1,2,61"], {}, 2, "61"),
    ]
    counts = {"cli_cases": len(cases), "cli_cases_ok": 0}
    failures: Failures = []
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda c: _cli(c[1], c[2], None if c[0] in COLD_CASES else warm), cases))
    for (label, _args, _env, code, named), (rc, _out, err) in zip(cases, results, strict=True):
        if rc == code and named in err:
            counts["cli_cases_ok"] += 1
        else:
            tail = err.strip().splitlines()[-1] if err.strip() else ""
            failures.append(f"cli {label}: exit {rc} (documented {code}), stderr must name {named!r}: {tail}")
    # The exported checkpoint decodes the embedded model's tokens; the CLI's JSON is the observation
    # the same call makes in this process (meta aside), and its summary line counts what the JSON holds.
    from vtengine.arms import ARMS, select_arms

    ref_text = " sat on the mat"
    runs = [["generate", "--prompt", "bench", "--tokens", "6", "--json", "-"],
            ["generate", "--prompt", "bench", "--tokens", "6", "--model", str(good), "--json", "-"],
            ["score", "--prompt", "the cat", "--reference", ref_text, "--json", "-"],
            ["arms", "--json", "-"]]
    # The model's own greedy chain: every position from the prompt's last on predicts the next token, so
    # its agreement count is far from what a count off by a position would print (checked below).
    in_process = observe["generate"]("bench", 6)  # what generate --json must print, and the chain's tokens
    chain = tokenizer.encode("bench") + [int(t) for t in in_process["tokens"]]
    runs.append(["score", "--ids", ",".join(str(t) for t in chain), "--json", "-"])
    with ThreadPoolExecutor(2) as pool:
        outputs = list(pool.map(lambda r: _cli(r, warm=None if r is runs[0] else warm), runs))
    parsed: list[Any] = []
    for rc, out, _err in outputs:
        try:
            parsed.append(json.loads(out) if rc == 0 else None)
        except ValueError:
            parsed.append(None)
    tiny, exported, scored, registry, chained = parsed

    def bare(observation: Any) -> Any:
        return {k: v for k, v in observation.items() if k != "meta"} if isinstance(observation, dict) else None

    checks = {
        "export decodes the embedded model's tokens": tiny is not None and exported is not None
        and tiny["tokens"] == exported["tokens"] and len(tiny["tokens"]) == 6,
        "generate --json is the in-process observation": bare(tiny) == bare(json.loads(json.dumps(in_process))),
        "generate prints the prompt and the decoded text": tiny is not None
        and "bench" + tiny["text"] in outputs[0][2],
        "score --json is the in-process observation": bare(scored) == bare(json.loads(json.dumps(
            observe["teacher_forced"]("the cat", ref_text)))),
    }
    if scored is not None:
        ids = tokenizer.encode("the cat") + tokenizer.encode(ref_text, bos=False)
        agree = sum(int(p == t) for p, t in zip(scored["tokens"][:-1], ids[1:], strict=True))
        checks["score prints the agreement count"] = f"{agree}/{len(ids) - 1} positions predict" in outputs[2][2]
    else:
        checks["score prints the agreement count"] = False
    if chained is not None:
        agree = sum(int(p == t) for p, t in zip(chained["tokens"][:-1], chain[1:], strict=True))
        shifted = sum(int(p == t) for p, t in zip(chained["tokens"][:-1], chain[:-1], strict=True))
        checks["score --ids of the model's greedy chain prints its agreement count (>= 6, not a shifted one)"] = (
            agree >= 6 and agree != shifted and f"{agree}/{len(chain) - 1} positions predict" in outputs[4][2])
    else:
        checks["score --ids of the model's greedy chain prints its agreement count (>= 6, not a shifted one)"] = False
    expected_arms = [{k: v for k, v in vars(a).items()} for a in ARMS]
    checks["arms --json is the registry and the selection"] = registry is not None and [
        {k: v for k, v in e.items() if k != "differs_here"} for e in registry["arms"]] == expected_arms \
        and registry["selected"] == select_arms(Knobs.from_env())
    # An existing checkpoint is never overwritten by export (docs/checkpoints.md: an existing non-empty
    # directory is refused): the second export is a usage error and the first one's files stay.
    before = {f.name: f.read_bytes() for f in sorted(good.iterdir())} if good.is_dir() else {}
    again, _out, said = _cli(["export", "vt-tiny", str(good)], warm=warm)
    checks["export into an existing checkpoint is refused, leaving it"] = again == 2 and "already exists" in said \
        and bool(before) and before == {f.name: f.read_bytes() for f in sorted(good.iterdir())}
    import signal as signals

    for sig, code in ((signals.SIGTERM, 143), (signals.SIGINT, 130)):
        ended, said = _signalled(sig)
        checks[f"{sig.name} ends bench with {code}, saying so"] = ended == code and "interrupted: vtengine bench" in said
    # --json PATH writes the file anew: after a generate and then a score into the same path, it holds
    # the score's one document (the same observation its --json - printed).
    target = root / "cli-out.json"
    _cli(["generate", "--prompt", "bench", "--tokens", "2", "--json", str(target)], warm=warm)
    _cli(["score", "--prompt", "the cat", "--reference", ref_text, "--json", str(target)], warm=warm)
    try:
        written = json.loads(target.read_text())
    except (OSError, ValueError) as error:
        written = f"{type(error).__name__}: {error}"
    checks["--json PATH holds the last run's one document (a second run replaces the file)"] = (
        scored is not None and bare(written) == bare(scored))
    # An error's advice is checked by taking it: bench past the context says "give at most --tokens N";
    # N tokens then run, and N + 1 do not (a model of context 32, so the runs are short).
    import re

    _rc, _out, advised = _cli(["bench", "--model", str(ids_only), "--prompt-tokens", "30", "--tokens", "8",
                               "--runs", "1"], warm=warm)
    most = re.search(r"give at most --tokens (\d+)", advised)
    if most is None:
        checks["bench's advice past the context names a --tokens that runs"] = False
    else:
        n = int(most.group(1))
        taken = [_cli(["bench", "--model", str(ids_only), "--prompt-tokens", "30", "--tokens", str(t), "--runs", "1"],
                      warm=warm)[0]
                 for t in (n, n + 1)]
        checks[f"bench's advice past the context: at most --tokens {n} runs (exit {taken[0]}), "
               f"{n + 1} is refused (exit {taken[1]})"] = taken == [0, 2]
    # --ids are decimal integers: zero-padded ones (as a fixed-width export writes them) are the same ids.
    padded = [_cli(["score", "--model", str(ids_only), "--ids", ids, "--json", "-"], warm=warm) for ids in
              ("1,2,60,7", "0001,002,060,07")]
    try:
        same_ids = padded[0][0] == padded[1][0] == 0 and bare(json.loads(padded[0][1])) == bare(json.loads(padded[1][1]))
    except ValueError:
        same_ids = False
    checks[f"score --ids 0001,002,060,07 is --ids 1,2,60,7 (exit {padded[1][0]})"] = same_ids
    ended, said = _ignoring_sigterm()
    checks[f"SIGTERM ignored by the parent (nohup) stays ignored: bench ends 0 (exit {ended}: {said!r})"] = ended == 0
    counts["cli_cases"] += len(checks)
    for label, ok in checks.items():
        counts["cli_cases_ok"] += int(bool(ok))
        if not ok:
            failures.append(f"cli: {label}: no ({[o[0] for o in outputs]})")
    return counts, failures



# -- arms, provenance, calls -----------------------------------------------------------------------


def arm_properties() -> tuple[dict[str, int], Failures]:
    """The documented precedence over every combination of the five arm flags (attention: FMA over
    bf16 pair-dot over the default; GEMV: BLAS over bf16 pair-dot over the default), and a registry
    with one default arm per kernel and a documented flag for every other arm."""
    from itertools import product

    from vtengine.arms import ARMS, KERNELS, select_arms

    counts = {"arm_rows": 0, "arm_rows_ok": 0, "arm_registry_ok": 0, "arm_lookup_ok": 0}
    failures: Failures = []
    names = list(FLAGS.values())
    for bits in product((False, True), repeat=len(names)):
        row = dict(zip(names, bits, strict=True))
        want = {"paged_attention": "scalar_fma" if row["paged_attn_scalar_fma"] else
                "bfdot" if row["paged_attn_bfdot"] else "default",
                "gemv": "blas" if row["gemv_blas"] else "bf16_dot" if row["gemv_bf16_dot"] else "default"}
        got = select_arms(Knobs(**row))  # type: ignore[arg-type]
        counts["arm_rows"] += 1
        counts["arm_rows_ok"] += int(got == want)
        if got != want:
            failures.append(f"arms: flags {row} select {got}, documented {want}")
    # arm(kernel, name) is the registry's entry of that kernel and that name, for every pair (a name
    # such as "default" is in several kernels), and a pair the registry lacks is a KeyError naming it.
    from vtengine.arms import arm as lookup

    found = [(a.kernel, a.name, lookup(a.kernel, a.name)) for a in ARMS]
    wrong = [f"{k}/{n} -> {got.kernel}/{got.name}" for k, n, got in found if (got.kernel, got.name) != (k, n)]
    try:
        lookup("gemv", "scalar_fma")
        wrong.append("gemv/scalar_fma (an attention arm) was found")
    except KeyError as error:
        if "scalar_fma" not in str(error):
            wrong.append(f"the KeyError for gemv/scalar_fma does not name it: {error}")
    counts["arm_lookup_ok"] = int(not wrong)
    if wrong:
        failures.append(f"arms: arm(kernel, name) is not the registry's entry: {wrong}")
    defaults = {k: [a.name for a in ARMS if a.kernel == k and a.default] for k in KERNELS}
    knobbed = all((a.knob is None) == a.default and (a.default or a.knob in FLAGS) for a in ARMS)
    if all(v == ["default"] for v in defaults.values()) and knobbed:
        counts["arm_registry_ok"] = 1
    else:
        failures.append(f"arms: registry defaults {defaults}, every other arm behind a documented flag: {knobbed}")
    return counts, failures


def armcheck_properties() -> tuple[dict[str, int], Failures]:
    """``differs_here`` (what ``vtengine arms`` reports) measures an arm against the default arms
    whatever the environment's knobs: with the arm's own flag already set, the answer is the one
    without it. This host decides the answer; only the agreement is asserted. Eight measurements on
    vt-tiny (about 6 s), so the family runs in the slow gate with the long context."""
    from vtengine.armcheck import KNOB_FIELDS, differs_here
    from vtengine.arms import ARMS

    counts = {"arm_differs_ok": 0}
    failures: Failures = []
    for candidate in ARMS:
        if candidate.knob is None:
            continue
        plain = differs_here(candidate, Knobs())
        preset = differs_here(candidate, Knobs(**{KNOB_FIELDS[candidate.knob]: True}))  # type: ignore[arg-type]
        if plain == preset:
            counts["arm_differs_ok"] += 1
        else:
            failures.append(f"armcheck: differs_here({candidate.kernel}/{candidate.name}) is {plain}, and {preset} with "
                            f"{candidate.knob}=1 already set: the baseline took the arm under test")
    return counts, failures


def provenance_properties(root: Path) -> tuple[dict[str, int], Failures]:
    """The source tree hash (docs/contracts.md section 2) of a copy of this package: unchanged by
    caches, hidden folders and non-Python files; changed by a byte of any .py file, a renamed or an
    added module; back when the copy is restored. The running package's hash is the one its
    observations carry, and a tree that did not supply the loaded modules is refused as mixed."""
    import shutil

    from vtengine.provenance import (
        MixedImportsError,
        check_single_tree,
        package_dir,
        source_info,
        source_tree_hash,
    )

    copy = root / "provenance" / "vtengine"
    shutil.copytree(package_dir(), copy, ignore=shutil.ignore_patterns("__pycache__"))
    first = source_tree_hash(copy)
    checks: dict[str, bool] = {}
    # The hash is of relative paths and bytes: the same files anywhere hash alike, a folder whose
    # name starts with "." above the package (a .venv, ~/.local) included.
    hidden = root / ".hidden-parent" / "site" / "vtengine"
    shutil.copytree(copy, hidden)
    checks["the same files hash alike wherever they lie"] = source_tree_hash(hidden) == first
    checks["a copy hashes as the running package"] = first == source_tree_hash(package_dir())
    (root / "provenance" / "empty").mkdir()
    checks["a tree with modules does not hash as an empty one"] = (
        first != source_tree_hash(root / "provenance" / "empty"))
    (copy / "__pycache__").mkdir(exist_ok=True)
    (copy / "__pycache__" / "x.py").write_text("x = 1\n")
    (copy / ".hidden").mkdir()
    (copy / ".hidden" / "y.py").write_text("y = 1\n")
    (copy / "notes.txt").write_text("notes\n")
    checks["caches, hidden folders and other files leave it"] = source_tree_hash(copy) == first
    target = copy / "tokenizer.py"
    original = target.read_bytes()
    target.write_bytes(original + b" ")
    checks["a byte of a module changes it"] = source_tree_hash(copy) != first
    target.write_bytes(original)
    target.rename(copy / "tokenizer2.py")
    checks["a renamed module changes it"] = source_tree_hash(copy) != first
    (copy / "tokenizer2.py").rename(target)
    (copy / "sub").mkdir()
    (copy / "sub" / "extra.py").write_text("")
    checks["an added module changes it"] = source_tree_hash(copy) != first
    shutil.rmtree(copy / "sub")
    checks["restored, it is the first hash again"] = source_tree_hash(copy) == first
    checks["observations carry the running package's hash"] = (
        source_info()["source_tree_hash"] == source_tree_hash(package_dir()))
    # source_root is the folder to put on PYTHONPATH for this engine: the package is its vtengine/
    checks["source_root is the folder the package lies in (what PYTHONPATH names)"] = (
        Path(source_info()["source_root"]) / package_dir().name == package_dir())
    # Bytes, not text: each edit below leaves the text that universal newlines, a BOM-aware or a
    # whitespace-blind reader would see, and each still changes the hash.
    for label, edit in (("CRLF line ends", lambda b: b.replace(b"\n", b"\r\n")),
                        ("a lone CR", lambda b: b.replace(b"\n", b"\r", 1)),
                        ("a UTF-8 BOM", lambda b: b"\xef\xbb\xbf" + b),
                        ("a trailing newline", lambda b: b + b"\n")):
        target.write_bytes(edit(original))
        checks[f"{label} in a module changes it"] = source_tree_hash(copy) != first
        target.write_bytes(original)
    # The documented formula itself (sha256 over "posix/relative/path" NUL sha256(bytes), sorted by the
    # POSIX path as a string), on names where sorting by path parts or by case would give another order.
    odd = root / "provenance" / "odd"
    for name in ("a/b.py", "a-b/x.py", "a.b.py", "a/b/c.py", "aB.py", "A.py", "a_b.py", "\u00e9.py", "z/a.py"):
        (odd / name).parent.mkdir(parents=True, exist_ok=True)
        (odd / name).write_bytes(f"# {name}\n".encode())
    formula = hashlib.sha256()
    for rel in sorted(p.relative_to(odd).as_posix() for p in odd.rglob("*.py")):
        formula.update(rel.encode("utf-8") + b"\0" + hashlib.sha256((odd / rel).read_bytes()).digest())
    checks["the hash is the documented formula (sorted by POSIX path string) on a-b/ beside a/, case, accents"] = (
        source_tree_hash(odd) == formula.hexdigest())
    # Containment is by path components: a directory whose path is a prefix of the package's as a
    # string (".../vtengin", a sibling ".../vtengine_backup" seen from the other side) is not its tree.
    running = package_dir()
    for sibling in (running.parent / running.name[:-1], running.parent / f"{running.name}-old"):
        try:
            check_single_tree(sibling)
            checks[f"the modules of {running.name}/ are not of {sibling.name}/"] = False
        except MixedImportsError:
            checks[f"the modules of {running.name}/ are not of {sibling.name}/"] = True
    # A PYTHONPATH entry that is a symlink to the engine's folder (a venv's src link, a deploy's
    # "current" link): the modules are the tree's, so the process's provenance is whole and hashes alike.
    link = root / "provenance-link"
    link.symlink_to(running.parent, target_is_directory=True)
    code = "import json; from vtengine.provenance import source_info; print(json.dumps(source_info()))"

    def imported_through(entry: Path) -> dict[str, Any]:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False,
                              env={**_cli_env(), "PYTHONPATH": str(entry), "PYTHONDONTWRITEBYTECODE": "1"})
        try:
            return dict(json.loads(done.stdout.strip().splitlines()[-1])) if done.returncode == 0 else {}
        except (ValueError, IndexError):
            return {}

    linked, direct = imported_through(link), imported_through(running.parent)
    checks["imported through a symlinked PYTHONPATH, the tree is whole and hashes alike"] = (
        bool(direct.get("source_tree_hash")) and linked.get("source_tree_hash") == direct["source_tree_hash"])
    try:
        check_single_tree(copy)
        checks["a tree that supplied no loaded module is refused"] = False
    except MixedImportsError:
        checks["a tree that supplied no loaded module is refused"] = True
    counts = {"provenance_checks": len(checks), "provenance_ok": sum(checks.values())}
    return counts, [f"provenance: {label}: no" for label, ok in checks.items() if not ok]


def call_properties(seed: int) -> tuple[dict[str, int], Failures]:
    """Edge inputs through every public decoding call, against each call's definition: a batch of
    identical prompts, a batch of one and prompts of different lengths equal each prompt alone;
    a one-token prompt and one step; speculative decoding equals greedy for several n-gram sizes;
    score's argmax is forward_logits'; empty prompts, zero steps, ids outside the vocab and a
    zero n-gram are refused with ValueError, and the engine that refused still equals a fresh one."""
    rng = np.random.Generator(np.random.PCG64(seed))
    config = ModelConfig(name="calls", vocab_size=17, d_model=12, n_layers=2, n_heads=3, n_kv_heads=1, d_ff=10,
                         max_context=48, seed=int(rng.integers(2**31)))
    model = Model(config, generate_tensors(config), quantize=True)
    p = rng.integers(0, 17, 9).tolist()
    q = rng.integers(0, 17, 3).tolist()
    fresh = Engine(model, Knobs())
    alone = {tuple(x): fresh.generate(x, 5) for x in (p, q, p[:1])}
    fresh.close()
    engine = Engine(model, Knobs())
    checks: dict[str, bool] = {}

    def same(gens: list[Any], prompts: list[list[int]]) -> bool:
        return all(g.tokens == alone[tuple(x)].tokens and _same_bits(g.logits, alone[tuple(x)].logits)
                   for g, x in zip(gens, prompts, strict=True))

    checks["a batch of identical prompts"] = same(engine.generate_batch([p, p, p], 5), [p, p, p])
    checks["a batch of one"] = same(engine.generate_batch([p], 5), [p])
    checks["prompts of different lengths"] = same(engine.generate_batch([q, p, p[:1]], 5), [q, p, p[:1]])
    one = engine.generate(p[:1], 1)
    checks["one token, one step"] = one.tokens == [int(np.argmax(engine.forward_logits(p[:1])[-1]))]
    for n in (1, 2, 3):
        checks[f"speculative, n-gram {n}"] = engine.speculative(p, 5, ngram=n).tokens == alone[tuple(p)].tokens
    checks["speculative, one step"] = engine.speculative(p, 1).tokens == alone[tuple(p)].tokens[:1]
    scored = engine.score(p)
    checks["score is forward_logits' argmax"] = scored.tokens == [int(t) for t in engine.forward_logits(p).argmax(1)]
    # Each refusal is a ValueError whose message names what was wrong (the house rule for errors).
    refusals: dict[str, tuple[Callable[[], Any], str]] = {
        "an empty prompt": (lambda: engine.generate([], 2), "prompt"),
        "zero steps": (lambda: engine.generate(p, 0), "steps"),
        "zero steps in a batch": (lambda: engine.generate_batch([p, q], 0), "steps"),
        "an id past the vocab": (lambda: engine.generate([17], 1), "token ids"),
        "a negative id": (lambda: engine.generate([-1], 1), "token ids"),
        "an empty batch member": (lambda: engine.generate_batch([p, []], 1), "prompt"),
        "a zero n-gram": (lambda: engine.speculative(p, 3, ngram=0), "ngram"),
        "past the context": (lambda: engine.generate(p, 48), "context"),
        "a recompute past the context": (lambda: engine.generate_recompute(p, 48), "context"),
    }
    for label, (call, named) in refusals.items():
        try:
            call()
            checks[f"refuses {label}"] = False
        except ValueError as error:
            checks[f"refuses {label}"] = named in str(error)
        except Exception:  # noqa: BLE001 - another exception type breaks the documented contract
            checks[f"refuses {label}"] = False
    checks["after the refusals, equal to a fresh engine"] = same([engine.generate(p, 5)], [p])
    engine.close()
    # Arrays cross the API by value: what a call returns is the caller's to edit, and what the caller
    # handed to Model stays the caller's. Editing them in place (a pruning experiment on an export, a
    # buffer reused for the next checkpoint) changes nothing the model computes or hands out afterwards.
    for stored in ("f32", "fp8"):  # float32 and fp8 codes: the two kinds a Model could hold as given
        given = stored_tensors(config, stored)
        held = Model(config, given)
        digest, values = held.digest(), {n: a.copy() for n, a in held.dequantized_tensors().items()}
        first = Engine(held, Knobs())
        logits = np.array(first.forward_logits(p), copy=True)
        score_logits = np.array(first.score(p).logits, copy=True)
        for edited in (held.dequantized_tensors(), given):
            for array in edited.values():
                array[...] = 0
        for returned in (first.forward_logits(p), first.score(p).logits):
            np.asarray(returned)[...] = np.float32(0.0)
        same_engine = _same_bits(first.forward_logits(p), logits) and _same_bits(first.score(p).logits, score_logits)
        first.close()
        again = Engine(held, Knobs())
        checks[f"arrays cross the API by value ({stored} tensors): editing an export, the tensors given to Model "
               "or a call's logits changes nothing"] = (same_engine and held.digest() == digest and all(
                   _same_bits(a, values[n]) for n, a in held.dequantized_tensors().items())
                   and _same_bits(again.forward_logits(p), logits) and _same_bits(again.score(p).logits, score_logits))
        again.close()
    # The public multi-row kernel, rows in any order (the engine passes them ascending): bit for bit one
    # paged_attention call per row, as its docstring says. The longest row is first, never last.
    from vtengine.attention import paged_attention, paged_attention_rows

    n_kv, heads, hd, bs, blocks = 2, 4, 8, 4, 5
    k_cache = rng.standard_normal((n_kv, hd, blocks, bs)).astype(np.float32)
    v_cache = rng.standard_normal((n_kv, blocks, bs, hd)).astype(np.float32)
    table = rng.permutation(blocks).astype(np.int64)
    ctxs = rng.permutation(np.arange(1, blocks * bs))[:5]
    ctxs = np.concatenate([[blocks * bs], ctxs])  # the longest (every block) first
    rows = rng.standard_normal((len(ctxs), heads, hd)).astype(np.float32)
    scale = np.float32(1 / np.sqrt(hd))
    for arm in ("default", "scalar_fma"):
        try:
            together = paged_attention_rows(rows, k_cache, v_cache, table, ctxs, scale, arm)
            checks[f"paged_attention_rows, rows in any order, is one call per row ({arm})"] = all(
                _same_bits(together[r], paged_attention(rows[r], k_cache, v_cache, table, int(c), scale, arm))
                for r, c in enumerate(ctxs))
        except Exception:  # noqa: BLE001 - a refusal of valid rows breaks the documented contract
            checks[f"paged_attention_rows, rows in any order, is one call per row ({arm})"] = False
    # Causal for every value: a row never reads a position at or past its context, so a NaN or an inf
    # written there (in K or in V, by a bug upstream or a poisoned cache block) leaves that row's bits as
    # they were; only the rows that attend the position may change. Every arm, rows in any order.
    for arm in ("default", "scalar_fma", "bfdot"):
        try:
            clean = paged_attention_rows(rows, k_cache, v_cache, table, ctxs, scale, arm)
        except Exception:  # noqa: BLE001 - a refusal of valid rows is the verdict, said above
            checks[f"paged_attention_rows ({arm}) runs on rows in any order"] = False
            continue
        for where, bad in (("V", np.float32(np.nan)), ("K", np.float32(np.inf)), ("V", np.float32(-np.inf))):
            position = int(np.sort(ctxs)[1])  # some rows end before it, some attend it
            block, offset = int(table[position // bs]), position % bs
            k_bad, v_bad = k_cache.copy(), v_cache.copy()
            if where == "V":
                v_bad[:, block, offset, :] = bad
            else:
                k_bad[:, :, block, offset] = bad
            try:
                with np.errstate(invalid="ignore", over="ignore"):  # the rows that attend it turn NaN
                    out = paged_attention_rows(rows, k_bad, v_bad, table, ctxs, scale, arm)
                kept = all(_same_bits(out[r], clean[r]) for r, c in enumerate(ctxs) if c <= position)
            except Exception:  # noqa: BLE001 - a refusal of valid rows breaks the documented contract
                kept = False
            checks[f"paged_attention_rows ({arm}): {bad} in {where} at position {position} leaves the rows "
                   f"that end before it"] = kept
    # Every head_dim, whatever its remainder by the 2-wide pair-dot and the 4 FMA lanes: head_dim
    # channels of zeros in q, K and V change no bit of the others (an extra 0*0 adds +0.0 to a nonzero
    # sum), so each arm's output on head_dim 1-9 equals its output with 1-4 zero channels appended, cut
    # back; and it has the shape asked for.
    for arm in ("default", "bfdot", "scalar_fma"):
        wrong = []
        for width in range(1, 10):
            k_w = rng.standard_normal((n_kv, width, 3, bs)).astype(np.float32)
            v_w = rng.standard_normal((n_kv, 3, bs, width)).astype(np.float32)
            q_w = rng.standard_normal((heads, width)).astype(np.float32)
            table_w, ctx_w, scale_w = rng.permutation(3).astype(np.int64), int(rng.integers(1, 3 * bs + 1)), \
                np.float32(1 / np.sqrt(width))
            for extra in (1, 2, 3, 4):
                try:
                    out = paged_attention(q_w, k_w, v_w, table_w, ctx_w, scale_w, arm)
                    wide_out = paged_attention(
                        np.pad(q_w, ((0, 0), (0, extra))), np.pad(k_w, ((0, 0), (0, extra), (0, 0), (0, 0))),
                        np.pad(v_w, ((0, 0), (0, 0), (0, 0), (0, extra))), table_w, ctx_w, scale_w, arm)
                    if out.shape != (heads, width) or not _same_bits(out, np.ascontiguousarray(wide_out[:, :width])):
                        wrong.append(f"head_dim {width} (+{extra} zero channels)")
                except Exception as error:  # noqa: BLE001 - a refusal of a valid head_dim is the finding
                    wrong.append(f"head_dim {width} (+{extra}): {type(error).__name__}")
        checks[f"paged_attention ({arm}) on head_dim 1-9 ignores zero channels, shape kept"
               + (f" ({wrong[0]})" if wrong else "")] = not wrong
    # Every call's margins are top-1 minus top-2 of the float32 logits it returns, in float64: exact
    # (two float32 values differ by a float64 exactly), on a model whose top-2 is often far below its top-1.
    # The check must reach such margins: models are drawn until a score holds at least 3 (bounded).
    wide_engine, prompt, reached = None, [0], 0
    for _ in range(8):
        wide = replace(config, name="margins", vocab_size=8, seed=int(rng.integers(2**31)))
        tensors = generate_tensors(wide)
        tensors["lm_head.weight"] = tensors["lm_head.weight"] * np.float32(40.0)
        wide_engine = Engine(Model(wide, tensors), Knobs())
        prompt = rng.integers(0, 8, 40).tolist()
        top32 = np.sort(wide_engine.score(prompt).logits, axis=-1)[:, -2:]
        reached = int(np.sum((top32[:, 1] - top32[:, 0]).astype(np.float64)
                             != top32[:, 1].astype(np.float64) - top32[:, 0]))
        if reached >= 3:
            break
        wide_engine.close()
    assert wide_engine is not None
    checks["margins: a drawn model has margins a float32 subtraction rounds"] = reached >= 3
    results: dict[str, Any] = {"score": wide_engine.score(prompt), "generate": wide_engine.generate(prompt[:3], 6),
                               "generate_recompute": wide_engine.generate_recompute(prompt[:3], 6),
                               "generate_batch": wide_engine.generate_batch([prompt[:3], prompt[:5]], 4)[1]}
    wide_engine.close()
    for decoding, result in results.items():
        top = np.sort(np.asarray(result.logits, np.float32), axis=-1)[:, -2:].astype(np.float64)
        exact = (top[:, 1] - top[:, 0]).tolist()
        checks[f"{decoding}: margins are the float64 difference of its top-2 float32 logits"] = (
            len(result.margins) == len(exact) and all(
                float(m).hex() == float(x).hex() for m, x in zip(result.margins, exact, strict=False)))
    # Exact ties: a head whose rows come in identical pairs (token t and 7 - t) ties every step's top
    # logit. Every decoding path takes the lowest id among the tied (numpy's argmax, what greedy means
    # here), so speculative decoding, batches and recompute stay equal to greedy on ties too.
    tied_config = replace(config, name="ties", vocab_size=8, seed=int(rng.integers(2**31)))
    tied = generate_tensors(tied_config)
    head = tied["lm_head.weight"]
    head[4:] = head[:4][::-1]
    tied_engine = Engine(Model(tied_config, tied), Knobs())
    prompt = rng.integers(0, 8, 6).tolist()
    ways: dict[str, Any] = {"generate": tied_engine.generate(prompt, 8), "score": tied_engine.score(prompt),
                            "generate_recompute": tied_engine.generate_recompute(prompt, 8),
                            "generate_batch": tied_engine.generate_batch([prompt[:2], prompt], 8)[1]}
    for way, result in ways.items():
        rows = np.asarray(result.logits, np.float32)
        lowest = [int(np.flatnonzero(r == r.max())[0]) for r in rows]
        checks[f"ties: {way} takes the lowest of the tied ids"] = (
            [int(t) for t in result.tokens] == lowest and all(np.sum(r == r.max()) == 2 for r in rows))
    checks["ties: speculative equals greedy"] = (
        tied_engine.speculative(prompt, 8, ngram=1).tokens == ways["generate"].tokens
        and tied_engine.speculative(prompt, 8, ngram=2).tokens == ways["generate"].tokens)
    tied_engine.close()
    counts = {"call_checks": len(checks), "call_checks_ok": sum(checks.values())}
    return counts, [f"calls: {label}: no" for label, ok in checks.items() if not ok]



# -- rounding: the numerics kernels against exact arithmetic ---------------------------------------


def _nearest_f32(exact: Fraction) -> np.float32:
    """The float32 nearest to the rational ``exact`` (ties to an even significand): by definition,
    from the three float32 values around the float64 nearest to it."""
    guess = np.float32(float(exact))
    around = [np.nextafter(guess, np.float32(-np.inf)), guess, np.nextafter(guess, np.float32(np.inf))]
    return min(around, key=lambda v: (abs(Fraction(float(v)) - exact), int(np.array(v).view(np.uint32)) & 1))


def _tie_heavy_f32(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """a, b, c whose product a*b lands on or next to a float32 rounding midpoint (significands of 13
    bits, so a*b has up to 26), and c far smaller, either sign: where one rounding and two differ."""
    def short(size: int) -> np.ndarray:
        mant = (2**12 + rng.integers(1, 2**12, size)) * rng.choice([-1.0, 1.0], size)
        return (mant * 2.0 ** rng.integers(-14, 2, size)).astype(np.float32)

    a, b = short(n), short(n)
    c = (rng.choice([-1.0, 1.0], n) * 2.0 ** rng.integers(-80, -20, n)).astype(np.float32)
    return a, b, c


def rounding_properties(seed: int) -> tuple[dict[str, int], Failures]:
    """``fma_f32`` is the correctly rounded float32 ``a*b + c`` (exact rational arithmetic rounded
    once, ties to even) on inputs drawn at rounding midpoints and on ordinary ones, both signs;
    ``round_bf16`` is the nearest bf16, ties to even, on every kind of float32 (midpoints, the largest
    finite, subnormals, infinities; NaN stays NaN); ``sum_sequential`` is its written left-to-right
    float32 sum from +0.0 on drawn shapes, axes, memory layouts and signed zeros (both of its paths)."""
    from vtengine.numerics import exp_f32, fma_f32, round_bf16, silu_f32, sum_sequential

    rng = np.random.Generator(np.random.PCG64(seed + 7))
    counts = {"rounding_cases": 0, "rounding_ok": 0}
    failures: Failures = []

    def verdict(label: str, bad: list[str]) -> None:
        counts["rounding_cases"] += 1
        counts["rounding_ok"] += int(not bad)
        if bad:
            failures.append(f"rounding: {label}: {len(bad)} wrong, first {bad[0]}")

    hard = _tie_heavy_f32(rng, 600)
    plain = tuple(rng.standard_normal(600).astype(np.float32) * np.float32(4) for _ in range(3))
    for label, (a, b, c) in (("fma_f32 at rounding midpoints", hard), ("fma_f32 on ordinary inputs", plain)):
        got = fma_f32(a, b, c)
        bad = []
        for x, y, z, r in zip(a.tolist(), b.tolist(), c.tolist(), got.tolist(), strict=True):
            want = float(_nearest_f32(Fraction(x) * Fraction(y) + Fraction(z)))
            if float(r).hex() != want.hex():
                bad.append(f"{x.hex()} * {y.hex()} + {z.hex()}: {float(r).hex()}, exact rounding {want.hex()}")
        verdict(label, bad)
    bits = rng.integers(0, 2**32, 4000, dtype=np.uint64).astype(np.uint32)
    bits[:1000] = (bits[:1000] & np.uint32(0xFFFF0000)) | np.uint32(0x8000)  # exact midpoints
    bits[1000:1010] = [0x7F7FFFFF, 0xFF7FFFFF, 0x7F7F8000, 0x00000001, 0x80008000, 0x00018000, 0x7F800000,
                       0xFF800000, 0x00000000, 0x80000000]  # largest finite, its midpoint, subnormals, inf, zeros
    values = bits.view(np.float32)
    finite = np.isfinite(values)
    with np.errstate(over="ignore"):
        rounded = round_bf16(values)
    up = bits.astype(np.uint64) + 0x7FFF + ((bits.astype(np.uint64) >> 16) & 1)  # nearest-even on the bits
    want_bits = ((up >> 16) << 16).astype(np.uint32)
    nearest = np.where(finite, want_bits.view(np.float32), values)
    same = (rounded.view(np.uint32) == nearest.view(np.uint32)) | (np.isnan(rounded) & np.isnan(values))
    verdict("round_bf16 is the nearest bf16, ties to even", [
        f"{int(b):#010x}: {float(r)!r}, nearest-even {float(w)!r}" for b, r, w, ok in
        zip(bits, rounded, nearest, same, strict=True) if not ok])
    bad = []
    for trial in range(64):
        shape = tuple(int(n) for n in rng.integers(1, 6, int(rng.integers(1, 4))))
        if trial >= 48:  # one long axis (past numpy's 8-wide unrolled and 128-block pairwise sums), 2 or 3-D
            shape = tuple(int(n) for n in rng.integers(2, 5, int(rng.integers(1, 3))))
            at = int(rng.integers(0, len(shape) + 1))
            shape = (*shape[:at], int(rng.integers(130, 400)), *shape[at:])
        x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)).astype(np.float32)
        if trial % 4 == 3 and trial < 48:  # signed zeros: the sum starts from +0.0, so all -0.0 sums to +0.0
            x = np.where(rng.random(shape) < 0.8 if trial % 8 == 7 else np.ones(shape, bool),
                         np.float32(-0.0), np.float32(0.0)).astype(np.float32)
        if trial % 3 == 1:
            x = np.asfortranarray(x)
        elif trial % 3 == 2 and x.ndim > 1:
            x = np.swapaxes(x, 0, -1)
        axis = int(rng.integers(-x.ndim, x.ndim)) if trial < 48 else int(np.argmax(x.shape))  # along the long one
        moved = np.moveaxis(x, axis, 0)
        total = np.zeros(moved.shape[1:], np.float32)
        for part in moved:
            total = (total + part).astype(np.float32)
        got = sum_sequential(x, axis)
        if got.shape != total.shape or got.tobytes() != total.tobytes():
            bad.append(f"shape {x.shape} axis {axis}: not the left-to-right float32 sum")
    verdict("sum_sequential is the left-to-right float32 sum", bad)
    for label, bad in _extremes(exp_f32, silu_f32):
        verdict(label, bad)
    return counts, failures


def _f32_landmarks() -> np.ndarray:
    """Finite float32 values where elementwise formulas break: signed zeros, subnormals, the edges of
    exp's float32 and float64 ranges (88.7, 103.9, 709.8, 745.1) and past them, up to the largest
    finite; both signs."""
    info = np.finfo(np.float32)
    magnitudes = [0.0, float(info.smallest_subnormal), 1e-38, 1e-30, 1e-8, 1e-3, 0.5, 1.0, 2.0, 10.0, 20.0, 40.0,
                  80.0, 88.5, 88.75, 89.0, 103.5, 104.0, 200.0, 700.0, 709.5, 710.0, 745.5, 746.0, 1000.0, 1e4, 1e6,
                  1e12, 1e20, 1e30, 1e38, float(info.max)]
    return np.array([m for x in magnitudes for m in (x, -x)], dtype=np.float32)


def _extremes(exp_f32: Callable[[np.ndarray], np.ndarray],
              silu_f32: Callable[[np.ndarray], np.ndarray]) -> list[tuple[str, list[str]]]:
    """The elementwise kernels over float32's whole finite range against their definitions computed
    stably in float64, one value at a time with the math module (so no SIMD path of numpy's is
    the reference): ``exp_f32`` is exp rounded once (inf past float32's range, +0.0 below it) and
    ``silu_f32`` is x * sigmoid(x) rounded once, finite for every finite x. Within one float32 ulp of
    the reference, with its class (finite, infinite, sign)."""
    import math

    x = _f32_landmarks()

    def exp64(v: float) -> float:
        try:
            return math.exp(v)
        except OverflowError:
            return math.inf

    def silu64(v: float) -> float:
        if v >= 0:
            return v / (1.0 + exp64(-v))
        e = exp64(v)  # no overflow on this side: e <= 1
        return v * e / (1.0 + e)

    out = []
    for label, kernel, reference in (("exp_f32 over float32's finite range", exp_f32, exp64),
                                     ("silu_f32 over float32's finite range (finite for every finite x)", silu_f32,
                                      silu64)):
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            got = np.asarray(kernel(x.copy()), dtype=np.float32)
        bad = []
        for value, result in zip(x.tolist(), got.tolist(), strict=True):
            with np.errstate(over="ignore"):
                want = float(np.float32(reference(value)))  # rounded once to float32 (inf past its range)
            same_class = (math.isnan(result) == math.isnan(want) and math.isinf(result) == math.isinf(want)
                          and (math.copysign(1.0, result) == math.copysign(1.0, want) or want == 0.0))
            near = same_class and (math.isinf(want) or abs(result - want) <= float(np.spacing(np.float32(abs(want)))))
            if not near:
                bad.append(f"x = {float(value)!r}: {result!r}, definition {want!r}")
        out.append((label, bad))
    return out


# -- quantization edges, parameters, environment ---------------------------------------------------

def _structured_matrix(rng: np.random.Generator, kind: str) -> np.ndarray:
    rows, cols = int(rng.choice([1, 5, 128, 130, 257])), int(rng.choice([1, 3, 128, 129, 200]))
    w = (rng.standard_normal((rows, cols)) * float(rng.choice([1e-3, 1.0, 50.0]))).astype(np.float32)
    if kind == "zero block":
        w[:min(rows, 128), :min(cols, 128)] = 0.0
    elif kind == "all zero":
        w[:] = 0.0
    elif kind == "constant":
        w[:] = np.float32(rng.choice([-3.5, 0.25, 1000.0]))
    elif kind == "outlier":
        w[int(rng.integers(rows)), int(rng.integers(cols))] = np.float32(1e6)
    elif kind == "tiny":
        w *= np.float32(1e-30)
    elif kind == "negative zeros":
        w[:, ::2] = -0.0
    return w


QUANT_KINDS = ("plain", "zero block", "all zero", "constant", "outlier", "tiny", "negative zeros")


def quant_properties(seed: int) -> tuple[dict[str, int], Failures]:
    """fp8-e4m3 block quantization (docs/checkpoints.md: one float32 scale per 128x128 block,
    ``amax / 448``, 1 for an all-zero block) on matrices with structure random draws never have:
    all-zero blocks, constant blocks, one outlier, values near float32's smallest normals, negative
    zeros, edges across the block size. Each dequantizes to finite values within e4m3's bound
    (relative 2^-4, plus 2^-9 of the scale for subnormal codes), zeros stay zeros, and a model
    holding such a weight (an all-zero o_proj) gives finite logits quantized as unquantized does."""
    from vtengine.numerics import dequantize_fp8_blocks, quantize_fp8_blocks

    rng = np.random.Generator(np.random.PCG64(seed))
    counts = {"quant_cases": 0, "quant_ok": 0, "quant_model_ok": 0}
    failures: Failures = []
    for i in range(2 * len(QUANT_KINDS)):
        kind = QUANT_KINDS[i % len(QUANT_KINDS)]
        w = _structured_matrix(rng, kind)
        counts["quant_cases"] += 1
        try:
            codes, scales = quantize_fp8_blocks(w)
            back = dequantize_fp8_blocks(codes, scales)
        except Exception as error:  # noqa: BLE001 - a crash on a finite weight is the verdict
            failures.append(f"quant {kind} {w.shape}: {type(error).__name__}: {error}")
            continue
        rows, cols = w.shape
        want_scales = (-(-rows // 128), -(-cols // 128))
        per = np.repeat(np.repeat(scales, 128, axis=0), 128, axis=1)[:rows, :cols].astype(np.float64)
        bound = np.abs(w.astype(np.float64)) * 2.0**-4 + per * 2.0**-9
        ok = (back.shape == w.shape and scales.shape == want_scales and bool(np.isfinite(back).all())
              and bool((np.abs(back.astype(np.float64) - w) <= bound).all()) and bool((back[w == 0] == 0).all()))
        counts["quant_ok"] += int(ok)
        if not ok:
            failures.append(f"quant {kind} {w.shape}: finite {bool(np.isfinite(back).all())}, scales {scales.shape} "
                            f"(documented {want_scales}), worst error over bound "
                            f"{float(np.nanmax(np.abs(back - w) - bound)) if np.isfinite(back).all() else 'nan'}")
    config = ModelConfig(name="zero-o", vocab_size=9, d_model=8, n_layers=1, n_heads=2, n_kv_heads=1, d_ff=6,
                         max_context=16, seed=11)
    tensors = generate_tensors(config)
    tensors["model.layers.0.self_attn.o_proj.weight"][:] = 0.0
    ids = [1, 4, 2]
    quantized, plain = _logits(Model(config, tensors, quantize=True), ids), _logits(Model(config, tensors), ids)
    if bool(np.isfinite(quantized).all()) and quantized.shape == plain.shape:
        counts["quant_model_ok"] = 1
    else:
        failures.append("quant: a model with an all-zero o_proj gives non-finite logits once quantized")
    return counts, failures



def spec_cache(policy: str, budget: int, accesses: list[tuple[str, int]]) -> tuple[int, int, int, int]:
    """The documented dequant cache, written plainly (docs/ENVIRONMENT.md, VT_DEQUANT_CACHE_POLICY):
    ``lru`` evicts the least recently used entries (a hit makes an entry the most recent) until the
    new one fits; ``pin`` keeps entries in first-come order while they fit and never evicts; an entry
    bigger than the budget is never stored. (hits, misses, evictions, resident bytes)."""
    resident: list[tuple[str, int]] = []  # least recent first
    hits = misses = evictions = 0
    for key, size in accesses:
        found = [i for i, (k, _) in enumerate(resident) if k == key]
        if found:
            hits += 1
            if policy == "lru":
                resident.append(resident.pop(found[0]))
            continue
        misses += 1
        if size > budget:
            continue
        used = sum(n for _, n in resident)
        if policy == "pin":
            if used + size <= budget:
                resident.append((key, size))
            continue
        while used + size > budget:
            used -= resident.pop(0)[1]
            evictions += 1
        resident.append((key, size))
    return hits, misses, evictions, sum(n for _, n in resident)


def cache_properties(seed: int) -> tuple[dict[str, int], Failures]:
    """The dequant cache against :func:`spec_cache` on seeded access sequences a decode loop never
    makes: skewed re-use (a hot key among cold ones, where LRU and first-in-first-out differ), repeats,
    entries of different sizes, one bigger than the budget, budgets from 0 up; and every access
    returns the loaded values."""
    from vtengine.dequant import DequantCache

    rng = np.random.Generator(np.random.PCG64(seed))
    counts = {"cache_sequences": 0, "cache_sequences_ok": 0}
    failures: Failures = []
    for i in range(24):
        policy = ("lru", "pin")[i % 2]
        keys = [f"w{k}" for k in range(int(rng.integers(2, 9)))]
        sizes = {k: 4 * int(rng.integers(1, 9)) for k in keys}
        budget = int(rng.choice([0, 8, 20, 40, 100]))
        if i % 3 == 0:
            sizes[keys[0]] = budget + 4  # never fits
        hot = keys[-1]
        order = [hot if rng.random() < 0.4 else str(rng.choice(keys)) for _ in range(int(rng.integers(5, 40)))]
        cache = DequantCache(budget, policy)
        same = True
        for key in order:
            value = np.full(sizes[key] // 4, float(keys.index(key)), np.float32)
            got = cache.get(key, value.copy)
            same = same and bool(np.array_equal(got, value))
        c = cache.counters()
        want = spec_cache(policy, budget, [(k, sizes[k]) for k in order])
        counts["cache_sequences"] += 1
        if (c.hits, c.misses, c.evictions, c.resident_bytes) == want and same:
            counts["cache_sequences_ok"] += 1
        else:
            failures.append(f"cache {policy} budget {budget} order {order[:12]}...: (hits, misses, evictions, "
                            f"resident) {(c.hits, c.misses, c.evictions, c.resident_bytes)}, documented {want}; "
                            f"values as loaded: {same}")
    return counts, failures


def _npz(arrays: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    return buffer.getvalue()


def _damaged_caches(data: bytes, arrays: dict[str, np.ndarray]) -> dict[str, bytes]:
    """Ways a model cache file is found damaged (a full disk, a crash mid-copy, a sync tool, another
    program's file under the same name): each must be read as damaged and regenerated."""
    first = sorted(arrays)[0]
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("notes.txt", "not arrays")
    pickled = io.BytesIO()
    np.save(pickled, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    return {"empty": b"", "not an archive": b"this is not an npz archive", "cut in half": data[: len(data) // 2],
            "cut at the end": data[:-1], "a zip of other files": archive.getvalue(), "pickled objects": pickled.getvalue(),
            "an array missing": _npz({k: v for k, v in arrays.items() if k != first}),
            "an array of another shape": _npz({**arrays, first: arrays[first][:1]}),
            "an array of another dtype": _npz({**arrays, first: arrays[first].astype(np.float64)})}


def _renames(call: Callable[[], Any]) -> list[tuple[Path, Path]]:
    """The (source, destination) of every ``os.replace`` and ``os.rename`` that ``call`` makes: how an
    atomic write lands its file. A rename is atomic only within one file system, so the source of
    the one that lands a file must lie beside it, never in the system's temporary folder."""
    seen: list[tuple[Path, Path]] = []
    real = {"replace": os.replace, "rename": os.rename}

    def spy(name: str) -> Callable[..., None]:
        def renamed(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
            seen.append((Path(src), Path(dst)))
            real[name](src, dst, *args, **kwargs)
        return renamed

    os.replace, os.rename = spy("replace"), spy("rename")
    try:
        call()
    finally:
        os.replace, os.rename = real["replace"], real["rename"]
    return seen


def _landed_beside(renames: list[tuple[Path, Path]], target: Path) -> str:
    """"ok" when a rename lands ``target`` from a file or folder beside it, else what happened."""
    landing = [(a, b) for a, b in renames if b.resolve() == target.resolve()]
    if not landing:
        return f"nothing was renamed onto {target.name} (renames: {[(str(a), str(b)) for a, b in renames]})"
    far = [str(a) for a, b in landing if a.resolve().parent != b.resolve().parent]
    return f"{target.name} was renamed from another folder: {far[0]}" if far else "ok"


def model_cache_properties(root: Path) -> tuple[dict[str, int], Failures]:
    """The embedded model's cache (``load_model("vt-tiny", cache_dir)``, docs/engine.md): a damaged
    cache file, in any of :func:`_damaged_caches`'s ways, is regenerated (the same model, and a cache
    file the next load reads), never an error or another model; a cache folder that cannot be made
    costs start-up time only."""
    counts = {"model_cache_cases": 0, "model_cache_ok": 0}
    failures: Failures = []
    folder = root / "model-cache"
    good = load_model("vt-tiny", folder).digest()
    written = sorted(folder.glob("vt-tiny-*.npz"))
    if len(written) != 1:
        return counts, [f"model cache: the first load wrote {len(written)} cache files, not 1"]
    path = written[0]
    data = path.read_bytes()
    with np.load(path) as stored:
        arrays = {k: stored[k] for k in stored.files}
    cases: dict[str, Callable[[], str]] = {}

    def damaged(content: bytes) -> Callable[[], str]:
        def case() -> str:
            path.write_bytes(content)
            if load_model("vt-tiny", folder).digest() != good:
                return "another model"
            with np.load(path) as stored:
                rewritten = sorted(stored.files) == sorted(arrays) and all(
                    stored[k].dtype == v.dtype and stored[k].shape == v.shape and stored[k].tobytes() == v.tobytes()
                    for k, v in arrays.items())
            return "ok" if rewritten else "the cache file was not rewritten with the model's arrays"
        return case

    for name, content in _damaged_caches(data, arrays).items():
        cases[name] = damaged(content)
    blocked = root / "model-cache-blocked"
    blocked.write_text("a file where the cache folder's parent should be")
    cases["a cache folder that cannot be made"] = (
        lambda: "ok" if load_model("vt-tiny", blocked / "cache").digest() == good else "another model")
    beside = root / "model-cache-renames"
    cases["the cache file is renamed into place from its own folder (the documented os.replace)"] = (
        lambda: _landed_beside(_renames(lambda: load_model("vt-tiny", beside)), beside / path.name))
    size = path.stat().st_size
    for limit in (1 << 16, size - 1):
        cases[f"a cache write cut at {limit} bytes"] = functools.partial(_cut_cache_write, root, limit, good)
    for name, case in cases.items():
        counts["model_cache_cases"] += 1
        try:
            said = case()
        except Exception as error:  # noqa: BLE001 - a damaged cache must never be fatal
            said = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
        if said == "ok":
            counts["model_cache_ok"] += 1
        else:
            failures.append(f"model cache, {name}: {said}")
    return counts, failures


def _cut_cache_write(root: Path, limit: int, good: str) -> str:
    """vt-tiny loaded in a fresh cache folder by a process that may write at most ``limit`` bytes per
    file (RLIMIT_FSIZE: the disk filling up part-way): the model loads, and what the folder then holds
    is no cache file or a whole one, never a cut file where the next reader looks, nor a temporary."""
    import resource

    folder = root / f"model-cache-cut-{limit}"

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))  # Python ignores SIGXFSZ: writes fail

    code = "from vtengine.model import load_model; print(load_model('vt-tiny').digest())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False,
                          env={**_cli_env(), "VT_CACHE_DIR": str(folder), "PYTHONDONTWRITEBYTECODE": "1"},
                          preexec_fn=cap)
    if done.returncode != 0 or done.stdout.strip() != good:
        return f"exit {done.returncode}, digest {done.stdout.strip()[:16]!r}: {done.stderr.strip()[-200:]}"
    left = sorted(folder.iterdir()) if folder.is_dir() else []
    for file in left:
        if file.suffix != ".npz":
            return f"left {file.name} behind"
        whole = (root / "model-cache").joinpath(file.name)  # the first load's file: the whole cache
        if not whole.is_file() or file.read_bytes() != whole.read_bytes():
            return f"{file.name} ({file.stat().st_size} bytes) is not the whole cache file"
    return "ok"


# Each parameter of the public API -> the family or check here that gives it a documented effect.
# A parameter added without an entry is a failure: what nobody checks is said, not skipped.
PUBLIC_CALLS = ("vtengine.model:load_model", "vtengine.model:Model", "vtengine.engine:Engine",
                "vtengine.engine:Engine.generate", "vtengine.engine:Engine.generate_batch",
                "vtengine.engine:Engine.generate_recompute", "vtengine.engine:Engine.score",
                "vtengine.engine:Engine.forward_logits", "vtengine.engine:Engine.speculative",
                "vtengine.checkpoint:load_checkpoint", "vtengine.checkpoint:save_checkpoint",
                "vtengine.tokenizer:encode", "vtengine.tokenizer:decode", "vtengine.knobs:scoped_env",
                "vtengine.knobs:child_env")
PARAMETER_SPECS = {
    "load_model.name_or_dir": "checkpoint family (directories) and every gate (vt-tiny)",
    "load_model.cache_dir": "parameters: cache_dir", "load_model.quantize": "parameters: quantize",
    "Model.config": "checkpoint family", "Model.tensors": "checkpoint family", "Model.quantize": "quant family",
    "Engine.model": "every family", "Engine.knobs": "knob rows of property-draws",
    "Engine.max_tokens": "parameters: max_tokens",
    "generate.prompt": "calls family", "generate.steps": "calls family",
    "generate_batch.prompts": "calls family", "generate_batch.steps": "calls family",
    "generate_recompute.prompt": "long family", "generate_recompute.steps": "property-draws contracts",
    "score.token_ids": "calls family", "forward_logits.token_ids": "calls and long families",
    "speculative.prompt": "calls family", "speculative.steps": "calls family", "speculative.ngram": "calls family",
    "speculative.max_draft": "parameters: max_draft",
    "load_checkpoint.directory": "checkpoint family",
    "save_checkpoint.directory": "parameters: overwrite", "save_checkpoint.config": "checkpoint refusals",
    "save_checkpoint.tensors": "checkpoint refusals (a refused save)", "save_checkpoint.overwrite": "parameters: overwrite",
    "encode.text": "tokenizer family", "encode.bos": "tokenizer family", "decode.ids": "tokenizer family",
    "scoped_env.values": "environment: scoped_env", "child_env.values": "environment: child_env",
}


def _callable(spec: str) -> Any:
    import importlib

    module, _, path = spec.partition(":")
    target: Any = importlib.import_module(module)
    for part in path.split("."):
        target = getattr(target, part)
    return target


def parameter_properties(root: Path) -> tuple[dict[str, int], Failures]:
    """Every parameter of the public calls has a spec entry, and the ones no other family exercises
    do what the docs say: ``cache_dir`` is where the embedded model is cached, ``quantize`` holds a
    checkpoint's matrices as fp8 blocks, an explicit ``max_tokens`` is a limit, every ``max_draft``
    keeps speculative decoding equal to greedy, and ``overwrite``: an existing empty directory is
    written, a non-empty one refused without it and replaced with it."""
    import inspect

    from vtengine.checkpoint import CheckpointError as Refused

    failures: Failures = []
    names = []
    for spec in PUBLIC_CALLS:
        target = _callable(spec)
        owner = spec.rpartition(":")[2].split(".")[-1]
        for name in inspect.signature(target).parameters:
            if name != "self":
                names.append(f"{owner}.{name}")
    missing = [n for n in names if n not in PARAMETER_SPECS]
    failures += [f"parameters: {n} has no spec in families.PARAMETER_SPECS: add what it must do" for n in missing]
    checks: dict[str, bool] = {}
    cache = root / "param-cache"
    first = load_model("vt-tiny", cache_dir=cache)
    files = sorted(p.name for p in cache.glob("*.npz")) if cache.is_dir() else []
    again = load_model("vt-tiny", cache_dir=cache)
    checks["cache_dir: the embedded model is cached there, once, and read back"] = (
        len(files) == 1 and again.digest() == first.digest())
    config = ModelConfig(name="params", vocab_size=9, d_model=8, n_layers=1, n_heads=2, n_kv_heads=1, d_ff=6,
                         max_context=32, seed=13)
    tensors = generate_tensors(config)
    directory = save_checkpoint(root / "param-ckpt", config, tensors)
    quantized = load_model(str(directory), quantize=True)
    checks["quantize: the loaded matrices are fp8 blocks, as Model(quantize=True)"] = (
        all(isinstance(w, QuantizedWeight) for n, w in quantized.weights.items() if tensors[n].ndim == 2)
        and _same_bits(_logits(quantized, [1, 2, 3]), _logits(Model(config, tensors, quantize=True), [1, 2, 3])))
    model = Model(config, tensors)
    limited = Engine(model, Knobs(kv_block_size=4), max_tokens=8)
    try:
        limited.generate_batch([[1, 2, 3]] * 3, 2)
        checks["max_tokens: an explicit size is a limit"] = False
    except MemoryError as error:  # "KV cache full (...): ... build the engine with a larger max_tokens"
        checks["max_tokens: an explicit size is a limit"] = "max_tokens" in str(error)
    except Exception:  # noqa: BLE001 - another error type breaks the contract
        checks["max_tokens: an explicit size is a limit"] = False
    for size in (0, 1, 2):  # every explicit size is a limit, 0 included (0 is a size, not "not given")
        tiny_limit = Engine(model, Knobs(kv_block_size=4), max_tokens=size)
        try:
            tiny_limit.generate_batch([[1, 2, 3]] * 3, 2)
            checks[f"max_tokens={size}: a limit"] = False
        except MemoryError as error:
            checks[f"max_tokens={size}: a limit"] = "max_tokens" in str(error)
        except Exception:  # noqa: BLE001 - another error type breaks the contract
            checks[f"max_tokens={size}: a limit"] = False
        finally:
            tiny_limit.close()
    checks["max_tokens: within it, the engine decodes as an unlimited one"] = (
        limited.generate([1, 2, 3], 4).tokens == Engine(model, Knobs()).generate([1, 2, 3], 4).tokens)
    limited.close()
    engine = Engine(model, Knobs())
    greedy = engine.generate([1, 2, 1, 2, 1], 12).tokens
    checks["max_draft: every draft size keeps speculative equal to greedy"] = all(
        engine.speculative([1, 2, 1, 2, 1], 12, ngram=1, max_draft=d).tokens == greedy for d in (1, 2, 3, 7))
    engine.close()
    empty = root / "param-empty"
    empty.mkdir()
    try:
        save_checkpoint(empty, config, tensors)
        checks["overwrite: an existing empty directory is written without it"] = (empty / CONFIG_FILE).is_file()
    except Exception:  # noqa: BLE001
        checks["overwrite: an existing empty directory is written without it"] = False
    try:
        save_checkpoint(directory, config, tensors)
        checks["overwrite: a non-empty directory is refused without it"] = False
    except Refused:
        checks["overwrite: a non-empty directory is refused without it"] = True
    other = generate_tensors(replace(config, seed=14))
    save_checkpoint(directory, config, other, overwrite=True)
    checks["overwrite: with it, the directory holds the new tensors"] = _same_bits(
        load_checkpoint(directory)[1]["model.norm.weight"], other["model.norm.weight"])
    save_checkpoint(directory, config, tensors, overwrite=True)  # a second replacement
    # Every save leaves only its checkpoint: no staging, retired or backup folder beside it, hidden or not.
    beside = sorted(p.name for p in root.iterdir() if "param-ckpt" in p.name or "param-empty" in p.name)
    checks[f"saves leave nothing beside the checkpoint (found {beside})"] = beside == ["param-ckpt", "param-empty"]
    nested = root / "param-new" / "a" / "b"
    try:
        save_checkpoint(nested, config, tensors)
        checks["a save into a path whose parents do not exist makes them"] = (nested / CONFIG_FILE).is_file()
    except Exception:  # noqa: BLE001 - a refusal of a new path is the finding
        checks["a save into a path whose parents do not exist makes them"] = False
    counts = {"parameters": len(names), "parameters_specified": len(names) - len(missing),
              "parameter_checks": len(checks), "parameter_checks_ok": sum(checks.values())}
    failures += [f"parameters: {label}: no" for label, ok in checks.items() if not ok]
    return counts, failures


def environment_properties() -> tuple[dict[str, int], Failures]:
    """``scoped_env`` sets its values for the block and then leaves the environment exactly as it
    was (names that were unset are unset again, even when the block raised); ``child_env`` is a copy
    with the values over it, leaving this process's environment alone; resolving knobs reads the
    environment without changing it."""
    probe = "VT_PROFILE"
    before = environment()
    checks: dict[str, bool] = {}
    with unset([probe, "VT_CPU_THREADS"]):
        with scoped_env({probe: "1", "VT_CPU_THREADS": "2"}):
            inside = Knobs.from_env()
        checks["scoped_env: set inside"] = inside.profile and inside.cpu_threads == 2
        checks["scoped_env: an unset name is unset after"] = (
            probe not in environment() and "VT_CPU_THREADS" not in environment())
        with scoped_env({probe: "0"}):
            try:
                with scoped_env({probe: "1"}):
                    raise KeyError("inside")
            except KeyError:
                pass
            checks["scoped_env: a set name is restored after an error"] = environment().get(probe) == "0"
        copy = child_env({probe: "1"})
        checks["child_env: a copy with the values, this process untouched"] = (
            copy.get(probe) == "1" and probe not in environment() and copy.get("PATH") == environment().get("PATH"))
        # The values asked for win over this process's own: a knob set in the shell is overridden for
        # the child, and stays as it was here.
        with scoped_env({probe: "0", "VT_CPU_THREADS": "1"}):
            asked = child_env({probe: "1", "VT_CPU_THREADS": "2"})
            checks["child_env: the values win over this process's environment"] = (
                asked.get(probe) == "1" and asked.get("VT_CPU_THREADS") == "2"
                and environment().get(probe) == "0" and environment().get("VT_CPU_THREADS") == "1")
        snapshot = environment()
        Knobs.from_env()
        checks["knobs: resolving leaves the environment alone"] = environment() == snapshot
        # unset takes any iterable of names (Iterable[str]): a generator, a set, a dict's keys, a tuple
        # each restore what was set, once the block ends
        pair = (probe, "VT_CPU_THREADS")
        for kind, names in (("a generator", lambda: (n for n in pair)), ("a set", lambda: set(pair)),
                            ("a dict's keys", lambda: dict.fromkeys(pair).keys()), ("a tuple", lambda: pair)):
            with scoped_env({probe: "1", "VT_CPU_THREADS": "3"}):  # each case from the same state
                with unset(names()):
                    gone = probe not in environment() and "VT_CPU_THREADS" not in environment()
                checks[f"unset over {kind}: unset inside, restored after"] = gone and (
                    environment().get(probe) == "1" and environment().get("VT_CPU_THREADS") == "3")
    checks["as before the family"] = environment() == before
    counts = {"environment_checks": len(checks), "environment_ok": sum(checks.values())}
    return counts, [f"environment: {label}: no" for label, ok in checks.items() if not ok]


# -- long contexts ---------------------------------------------------------------------------------

LONG_CONTEXT = 4096
LONG_LENGTH = 2304  # past 2048, where a table or cache capped at a common default would end


def long_properties(seed: int) -> tuple[dict[str, int], Failures]:
    from vtengine import properties

    rng = np.random.Generator(np.random.PCG64(seed))
    config = ModelConfig(name="long", vocab_size=13, d_model=8, n_layers=1, n_heads=2, n_kv_heads=1, d_ff=8,
                         max_context=LONG_CONTEXT, rope_theta=10000.0, seed=int(rng.integers(2**31)))
    model = Model(config, generate_tensors(config))
    ids = rng.integers(0, 13, LONG_LENGTH).tolist()
    counts = {"long_reference_ok": 0, "long_decode_ok": 0, "long_limit_ok": 0}
    failures: Failures = []
    engine = Engine(model, Knobs())
    f32 = Engine(model, Knobs(act_dtype="f32"))
    try:
        # The float32 arm against the float64 reference without bf16 rounding points: a tolerance of
        # float32 size (about 1e-4 here), so a position past 2048 rotated wrongly is thousands over it.
        logits = engine.forward_logits(ids)
        exact, tol = properties.tolerance(model, ids, False, seed, runs=1)
        error = np.abs(f32.forward_logits(ids).astype(np.float64) - exact)
        if float(error.max()) <= tol:
            counts["long_reference_ok"] = 1
        else:
            worst = int(np.argmax(error.max(axis=1)))
            failures.append(f"long: error {float(error.max()):.3g} over tolerance {tol:.3g}, worst at position {worst}")
        prompt = ids[:2040]
        gen = engine.generate(prompt, 16)  # decodes positions 2040-2055, across 2048
        full = engine.forward_logits(prompt + gen.tokens[:-1])
        if _same_bits(gen.logits[-1], full[-1]) and gen.tokens[0] == int(np.argmax(logits[2039])):
            counts["long_decode_ok"] = 1
        else:
            failures.append("long: decoding across position 2048 differs from recompute")
        short = Engine(Model(replace(config, max_context=40), model.dequantized_tensors()), Knobs())
        fits = short.generate(ids[:40], 1)  # the prompt fills the context: one token, from its last position
        try:
            short.generate(ids[:40], 2)
            over = "accepted"
        except ValueError as error:
            over = "context" if "context" in str(error) else str(error)
        short.close()
        if len(fits.tokens) == 1 and over == "context":
            counts["long_limit_ok"] = 1
        else:
            failures.append(f"long: the last position of the context: {len(fits.tokens)} token, one past: {over}")
    except Exception as error:  # noqa: BLE001 - the engine broke on a context it accepts
        failures.append(f"long: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
    finally:
        engine.close()
        f32.close()
    return counts, failures


# --------------------------------------------------------------------------------------------------


FAMILIES = ("checkpoint", "refusals", "tokenizer", "knobs", "profile", "arms", "provenance", "calls", "rounding",
            "quant", "cache", "modelcache", "parameters", "environment", "long", "armcheck", "cli")


def run(seed: int, checkpoints: int = 24, texts: int = 64, cli: bool = True,
        observe: dict[str, Callable[..., Any]] | None = None, only: list[str] | None = None) -> dict[str, Any]:
    """The families named in ``only`` (every one when None; ``cli=False`` drops the CLI's); counters
    (verdict counts) and a line per failure in ``cases``. A gate per slow family (long, cli) lets a
    code mutant run only the families whose code it reaches."""
    chosen = list(FAMILIES) if only is None else list(only)
    unknown = sorted(set(chosen) - set(FAMILIES))
    if unknown or not chosen:
        raise ValueError(f"families: unknown family {unknown} (known: {', '.join(FAMILIES)})" if unknown
                         else "families: only names no family; name at least one")
    if not cli and "cli" in chosen:
        chosen.remove("cli")
    counters: dict[str, int] = {}
    failures: Failures = []
    with tempfile.TemporaryDirectory(prefix="vtengine-families-") as folder:
        root = Path(folder)
        families: list[tuple[str, Callable[[], tuple[dict[str, int], Failures]]]] = [
            ("checkpoint", lambda: checkpoint_roundtrips(seed, checkpoints, root)),
            ("refusals", lambda: checkpoint_refusals(root)),
            ("tokenizer", lambda: tokenizer_properties(seed, texts)),
            ("knobs", lambda: knob_properties(seed)),
            ("profile", lambda: profile_properties(seed)),
            ("arms", arm_properties),
            ("provenance", lambda: provenance_properties(root)),
            ("calls", lambda: call_properties(seed)),
            ("rounding", lambda: rounding_properties(seed)),
            ("quant", lambda: quant_properties(seed)),
            ("cache", lambda: cache_properties(seed)),
            ("modelcache", lambda: model_cache_properties(root)),
            ("parameters", lambda: parameter_properties(root)),
            ("environment", environment_properties),
            ("long", lambda: long_properties(seed)),
            ("armcheck", armcheck_properties),
        ]
        families = [(name, family) for name, family in families if name in chosen]
        if "cli" in chosen:
            if observe is None:
                raise ValueError("the cli family needs observe: the probes' generate and teacher_forced")
            cli_observe = observe
            families.append(("cli", lambda: cli_properties(root, cli_observe)))
        leaks = 0
        for name, family in families:
            before = environment()
            part, failed = family()
            counters.update(part)
            failures += failed
            after = environment()
            if after != before:  # any engine call that changes the process environment
                leaks += 1
                changed = sorted(set(before.items()) ^ set(after.items()))
                failures.append(f"environment: the {name} family left it changed: {changed[:4]}")
                restore_environment(before)
        counters["environment_leaks"] = leaks
    counters["failures"] = len(failures)
    return {"counters": counters, "cases": {f"failure {i}": f for i, f in enumerate(failures)},
            "provenance": {"seed": seed, "checkpoints": checkpoints, "texts": texts, "families": chosen}}
