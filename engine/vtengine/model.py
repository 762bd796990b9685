"""Model weights: the Llama tensor set under Hugging Face names, held as fp8-e4m3 with per-block
float32 scales (the embedded ``vt-tiny``) or as the checkpoint's own float dtype, and the embedded
model's deterministic generator with its on-disk cache.

HF Linear weights are [out, in]; the engine wants them transposed, [in, out] = [K, N] C-contiguous,
with q/k/v and gate/up fused along N (fusing changes no arithmetic: every output column is its own
sequential dot). :meth:`Model.matrix_t` builds those; :meth:`Model.dequantized_tensors` returns the
exact float32 values the engine computes with, under HF names.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vtengine.config import VT_TINY, ModelConfig
from vtengine.numerics import BF16, FP8, dequantize_fp8_blocks, quantize_fp8_blocks, round_bf16

GENERATOR_VERSION = 1  # bump whenever generated vt-tiny weights change; it keys the disk cache
EMBEDDED = {"vt-tiny": VT_TINY}


class ModelError(ValueError):
    """A model or checkpoint that cannot be used; the message names the tensor or key."""


@dataclass(frozen=True)
class QuantizedWeight:
    """fp8-e4m3 codes (uint8 view, [out, in]) and float32 scales per 128x128 block."""

    codes: np.ndarray
    scales: np.ndarray

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.codes.shape)

    def dequantize(self) -> np.ndarray:
        """float32(code) * scale in float32, then round to bf16 (nearest-even): the engine's weights."""
        return round_bf16(dequantize_fp8_blocks(self.codes, self.scales))


def hf_names(config: ModelConfig) -> list[str]:
    names = ["model.embed_tokens.weight"]
    for i in range(config.n_layers):
        p = f"model.layers.{i}."
        names += [p + f"self_attn.{x}_proj.weight" for x in "qkvo"]
        names += [p + f"mlp.{x}_proj.weight" for x in ("gate", "up", "down")]
        names += [p + "input_layernorm.weight", p + "post_attention_layernorm.weight"]
    names.append("model.norm.weight")
    if not config.tie_word_embeddings:
        names.append("lm_head.weight")
    return names


def expected_shapes(config: ModelConfig) -> dict[str, tuple[int, ...]]:
    d, hd = config.d_model, config.head_dim
    shapes: dict[str, tuple[int, ...]] = {
        "model.embed_tokens.weight": (config.vocab_size, d),
        "model.norm.weight": (d,),
        "lm_head.weight": (config.vocab_size, d),
    }
    for i in range(config.n_layers):
        p = f"model.layers.{i}."
        shapes[p + "self_attn.q_proj.weight"] = (config.n_heads * hd, d)
        shapes[p + "self_attn.k_proj.weight"] = (config.n_kv_heads * hd, d)
        shapes[p + "self_attn.v_proj.weight"] = (config.n_kv_heads * hd, d)
        shapes[p + "self_attn.o_proj.weight"] = (d, config.n_heads * hd)
        shapes[p + "mlp.gate_proj.weight"] = (config.d_ff, d)
        shapes[p + "mlp.up_proj.weight"] = (config.d_ff, d)
        shapes[p + "mlp.down_proj.weight"] = (d, config.d_ff)
        shapes[p + "input_layernorm.weight"] = (d,)
        shapes[p + "post_attention_layernorm.weight"] = (d,)
    return shapes


Weight = QuantizedWeight | np.ndarray


class Model:
    """A Llama-architecture model's weights. Build from HF-named tensors:

    - float32 / float16 / bfloat16 arrays are kept in their own precision (held as float32);
    - float8_e4m3fn arrays need ``<name>_scale_inv`` (float32 per-128x128-block scales);
    - ``quantize=True`` quantizes every 2-D float weight to fp8 with block scales.
    """

    def __init__(self, config: ModelConfig, tensors: dict[str, np.ndarray], quantize: bool = False) -> None:
        if config.d_model % config.n_heads or config.n_heads % config.n_kv_heads:
            raise ModelError(
                f"config: d_model {config.d_model} / n_heads {config.n_heads} / n_kv_heads "
                f"{config.n_kv_heads} do not divide evenly"
            )
        self.config = config
        shapes = expected_shapes(config)
        self.weights: dict[str, Weight] = {}
        for name in hf_names(config):
            if name not in tensors:
                raise ModelError(f"missing tensor {name!r}")
            array = tensors[name]
            if tuple(array.shape) != shapes[name]:
                raise ModelError(f"tensor {name!r} has shape {tuple(array.shape)}, expected {shapes[name]}")
            self.weights[name] = self._hold(name, array, tensors, quantize)

    @staticmethod
    def _hold(name: str, array: np.ndarray, tensors: dict[str, np.ndarray], quantize: bool) -> Weight:
        if isinstance(array, QuantizedWeight):
            return array
        dtype = np.dtype(array.dtype)
        if dtype == FP8:
            scales = tensors.get(name + "_scale_inv")
            if scales is None:
                raise ModelError(f"fp8 tensor {name!r} has no {name + '_scale_inv'!r} block scales")
            return QuantizedWeight(array.view(np.uint8), np.asarray(scales, np.float32))
        if dtype not in (np.dtype(np.float32), np.dtype(np.float16), BF16, np.dtype(np.float64)):
            raise ModelError(f"tensor {name!r} has unsupported dtype {dtype}")
        values = np.asarray(array).astype(np.float32)
        if quantize and values.ndim == 2:
            return QuantizedWeight(*quantize_fp8_blocks(values))
        return values

    # -- values the engine computes with --------------------------------------------------------

    def tensor(self, name: str) -> np.ndarray:
        """float32 values of one HF-named tensor, exactly as the engine uses them."""
        if name == "lm_head.weight" and self.config.tie_word_embeddings:
            name = "model.embed_tokens.weight"
        weight = self.weights[name]
        if isinstance(weight, QuantizedWeight):
            return weight.dequantize()
        return weight

    def dequantized_tensors(self) -> dict[str, np.ndarray]:
        """Every tensor under its HF name as float32 (Linear weights [out, in]): for export and for
        independent reference implementations."""
        out = {name: self.tensor(name).copy() for name in hf_names(self.config)}
        if self.config.tie_word_embeddings:
            out.pop("lm_head.weight", None)
        return out

    def matrix_keys(self) -> list[str]:
        """The engine's weight matrices in the order one forward pass touches them."""
        keys = ["embed"]
        for i in range(self.config.n_layers):
            keys += [f"layers.{i}.qkv", f"layers.{i}.o", f"layers.{i}.gate_up", f"layers.{i}.down"]
        return [*keys, "lm_head"]

    def matrix_t(self, key: str) -> np.ndarray:
        """Dequantize one engine matrix: ``embed`` is [vocab, d]; the others [K, N] C-contiguous."""
        if key == "embed":
            return np.ascontiguousarray(self.tensor("model.embed_tokens.weight"))
        if key == "lm_head":
            return np.ascontiguousarray(self.tensor("lm_head.weight").T)
        _, index, part = key.split(".")
        p = f"model.layers.{index}."
        parts = {
            "qkv": ["self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"],
            "o": ["self_attn.o_proj"],
            "gate_up": ["mlp.gate_proj", "mlp.up_proj"],
            "down": ["mlp.down_proj"],
        }[part]
        return np.ascontiguousarray(np.concatenate([self.tensor(p + n + ".weight").T for n in parts], axis=1))

    def vector(self, name: str) -> np.ndarray:
        return np.ascontiguousarray(self.tensor(name), dtype=np.float32)

    def digest(self) -> str:
        """sha256 over every stored weight's bytes (codes and scales for fp8), in HF name order."""
        h = hashlib.sha256()
        for name in hf_names(self.config):
            weight = self.weights[name]
            h.update(name.encode())
            if isinstance(weight, QuantizedWeight):
                h.update(weight.codes.tobytes())
                h.update(weight.scales.astype("<f4").tobytes())
            else:
                h.update(weight.astype("<f4").tobytes())
        return h.hexdigest()


# -- the embedded model ---------------------------------------------------------------------------


def generate_tensors(config: ModelConfig) -> dict[str, np.ndarray]:
    """float32 weights from ``config.seed``, bit-stable across machines: PCG64 doubles are
    (uint64 >> 11) * 2**-53 (exact), mapped affinely to a uniform of the wanted standard deviation
    (exact float64 ops) and rounded once to float32. No transcendental touches them.

    Scales: embeddings std 1; q/k/v/gate/up std 1/sqrt(d_model); o std 1/sqrt(d_model), down std
    1/sqrt(d_ff), both x1.5 so attention and MLP move the residual stream; lm_head std 1/sqrt(d_model)
    x2 (logits of a few units, so near ties exist but most steps are decided)."""
    rng = np.random.Generator(np.random.PCG64(config.seed))
    shapes = expected_shapes(config)
    d, f = config.d_model, config.d_ff

    def uniform(shape: tuple[int, ...], std: float) -> np.ndarray:
        half_width = std * math.sqrt(3.0)
        return ((rng.random(shape) * 2.0 - 1.0) * half_width).astype(np.float32)

    stds = {
        "embed_tokens": 1.0,
        "q_proj": 1.0 / math.sqrt(d),
        "k_proj": 1.0 / math.sqrt(d),
        "v_proj": 1.0 / math.sqrt(d),
        "o_proj": 1.5 / math.sqrt(d),
        "gate_proj": 1.0 / math.sqrt(d),
        "up_proj": 1.0 / math.sqrt(d),
        "down_proj": 1.5 / math.sqrt(f),
        "lm_head": 2.0 / math.sqrt(d),
    }
    tensors: dict[str, np.ndarray] = {}
    for name in hf_names(config):
        shape = shapes[name]
        if name.endswith("norm.weight"):
            tensors[name] = round_bf16(1.0 + uniform(shape, 0.1))
            continue
        kind = next(k for k in stds if k in name)
        tensors[name] = uniform(shape, stds[kind])
    return tensors


def _cache_file(config: ModelConfig, cache_dir: Path) -> Path:
    key = json.dumps({"config": config.as_dict(), "generator": GENERATOR_VERSION}, sort_keys=True)
    return cache_dir / f"{config.name}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.npz"


def _write_atomically(path: Path, arrays: dict[str, np.ndarray]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            np.savez(handle, **arrays)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def embedded_model(name: str = "vt-tiny", cache_dir: Path | None = None) -> Model:
    """The embedded model, fp8-quantized. Generated on first use, then loaded from
    ``cache_dir/<name>-<key>.npz`` (key: config + generator version; written atomically)."""
    config = EMBEDDED[name]
    path = _cache_file(config, cache_dir) if cache_dir is not None else None
    if path is not None and path.is_file():
        try:
            with np.load(path) as stored:
                arrays = {k: stored[k] for k in stored.files}
            return _from_stored(config, arrays)
        except (OSError, ValueError, KeyError):
            pass  # a damaged cache file is regenerated below
    model = Model(config, generate_tensors(config), quantize=True)
    if path is not None:
        arrays = {}
        for wname, weight in model.weights.items():
            if isinstance(weight, QuantizedWeight):
                arrays[wname + ".codes"] = weight.codes
                arrays[wname + ".scales"] = weight.scales
            else:
                arrays[wname] = weight
        with contextlib.suppress(OSError):  # a read-only cache dir only costs start-up time
            _write_atomically(path, arrays)
    return model


def _from_stored(config: ModelConfig, arrays: dict[str, np.ndarray]) -> Model:
    tensors: dict[str, np.ndarray] = {}
    for name in hf_names(config):
        if name + ".codes" in arrays:
            tensors[name] = QuantizedWeight(arrays[name + ".codes"], arrays[name + ".scales"])  # type: ignore[assignment]
        else:
            tensors[name] = arrays[name]
    return Model(config, tensors)


def load_model(name_or_dir: str = "vt-tiny", cache_dir: Path | None = None, quantize: bool = False) -> Model:
    """``vt-tiny`` (embedded, generated from its seed; cached under ``cache_dir``, default the
    ``VT_CACHE_DIR`` knob) or a Llama-format checkpoint directory (config.json + model.safetensors),
    read by :mod:`vtengine.checkpoint`; ``quantize=True`` turns its float weights into fp8 blocks."""
    if name_or_dir in EMBEDDED:
        if cache_dir is None:
            from vtengine.knobs import Knobs

            cache_dir = Knobs.from_env().cache_path
        return embedded_model(name_or_dir, cache_dir)
    path = Path(name_or_dir)
    if not path.is_dir():
        raise ModelError(
            f"model {name_or_dir!r} is neither an embedded model ({', '.join(EMBEDDED)}) nor a checkpoint directory"
        )
    from vtengine.checkpoint import load_checkpoint  # the checkpoint module is optional at import time

    config, tensors = load_checkpoint(path)
    return Model(config, tensors, quantize=quantize)
