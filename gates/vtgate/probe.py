"""Helpers for writing a probe of your own engine: ``observation(tokens, logits)`` builds a valid
observation (docs/contracts.md#observations) with margins, digests, per-step cases, a compact logits
record for logits goldens and ``meta``; ``generate`` / ``teacher_forced`` adapt a transformers
``PreTrainedModel``. vtgate does not depend on torch: it is imported only inside the adapters.

Digest conventions (what a logits golden pins):

- ``digests.logits``: sha256 of every step's logits as little-endian float32 bytes, row after row;
- ``cases["pos-N"]``: sha256 of step N's logits, the same way;
- ``digests.stream``: sha256 of the little-endian int32 token ids."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import traceback
from collections.abc import Callable, Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

from vtgate.suite.observations import observation_problems
from vtgate.treehash import source_tree_hash

DEFAULT_TOP_K = 20  # per-step (token id, logit) pairs kept for tolerant logits goldens
LIBRARIES = ("numpy", "torch", "transformers", "safetensors", "jax", "vllm")


class ProbeShapeError(ValueError):
    """A probe handed ``observation`` data of the wrong shape; the message names the field."""


def logits_digest(rows: np.ndarray) -> str:
    """sha256 of ``rows`` as canonical little-endian float32 bytes (C order)."""
    canonical = np.ascontiguousarray(rows, dtype="<f4")
    return hashlib.sha256(canonical.tobytes()).hexdigest()


def stream_digest(tokens: Sequence[int]) -> str:
    """sha256 of the little-endian int32 token ids (docs/contracts.md section 5)."""
    return hashlib.sha256(np.asarray(list(tokens), dtype="<i4").tobytes()).hexdigest()


def _as_logits(logits: Any, steps: int) -> np.ndarray:
    if hasattr(logits, "detach") and hasattr(logits, "cpu"):  # a torch tensor, without importing torch
        logits = logits.detach().cpu().float().numpy()
    try:
        array = np.asarray(logits, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ProbeShapeError(f"logits: not an array of numbers ({error}); pass a (steps, vocab) array") from error
    if array.ndim == 3 and array.shape[0] == 1:
        array = array[0]  # a batch of one, as models return it
    if array.ndim != 2:
        raise ProbeShapeError(f"logits: shape {tuple(array.shape)}, expected (steps, vocab) = ({steps}, V): "
                              "one row of vocabulary logits per token")
    if array.shape[0] != steps:
        raise ProbeShapeError(f"logits: {array.shape[0]} rows but tokens has {steps} entries; "
                              "give one logits row per token (the row the token was chosen from)")
    if array.shape[1] < 2:
        raise ProbeShapeError(f"logits: vocabulary of {array.shape[1]}; a margin needs at least 2 logits per row")
    if not np.all(np.isfinite(array)):
        bad = int(np.argwhere(~np.isfinite(array))[0][0])
        raise ProbeShapeError(f"logits: step {bad} holds NaN or infinity; an observation is finite JSON")
    return array.astype(np.float32)


def _as_tokens(tokens: Any) -> list[int]:
    if hasattr(tokens, "tolist"):
        tokens = tokens.tolist()
    if isinstance(tokens, (str, bytes)) or not isinstance(tokens, Sequence):
        raise ProbeShapeError(f"tokens: {type(tokens).__name__}, expected a list of token ids (int)")
    if tokens and isinstance(tokens[0], list) and len(tokens) == 1:
        tokens = tokens[0]  # a batch of one
    bad = [t for t in tokens if isinstance(t, bool) or not isinstance(t, (int, np.integer))]
    if bad:
        raise ProbeShapeError(f"tokens: {bad[0]!r} is not an int; tokens is a flat list of token ids")
    return [int(t) for t in tokens]


def library_versions(names: Sequence[str] = LIBRARIES) -> dict[str, str]:
    """Installed versions of the libraries that decide numerics. Read from package metadata, so
    nothing (torch included) is imported to learn its version."""
    found = {}
    for name in names:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            continue
    return found


def build_meta(*, engine: str | None = None, model: str | None = None, source_tree: str | Path | None = None,
               knobs: Mapping[str, str] | None = None, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``meta`` for an observation: interpreter, library versions, and with ``source_tree`` the source
    tree hash the stale guard checks (docs/contracts.md section 2)."""
    meta: dict[str, Any] = {
        "python": platform.python_version(),
        "interpreter": sys.executable,
        "libraries": library_versions(),
    }
    if engine is not None:
        meta["engine"] = engine
    if model is not None:
        meta["model"] = model
    if source_tree is not None:
        directory = Path(source_tree).resolve()
        if not directory.is_dir():
            raise ProbeShapeError(f"source_tree: {directory} is not a folder; name the package folder of your engine")
        meta["source_tree_hash"] = source_tree_hash(directory)
        meta["source_root"] = str(directory)
    if knobs:
        meta["knobs"] = dict(knobs)
    if extra:
        meta.update(extra)
    return meta


def observation(tokens: Any, logits: Any, *, top_k: int = DEFAULT_TOP_K, engine: str | None = None,
                model: str | None = None, source_tree: str | Path | None = None,
                knobs: Mapping[str, str] | None = None, meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """An observation from ``tokens`` (one id per step) and ``logits`` (steps x vocab): ``tokens``,
    ``margins`` (top-1 minus top-2 logit per step), ``digests`` (``logits``, ``stream``), ``cases``
    (``pos-N`` -> that step's logits digest), ``logits`` (the top ``top_k`` ids and values per step,
    for tolerant logits goldens) and ``meta``. Raises ProbeShapeError naming the field at fault."""
    ids = _as_tokens(tokens)
    rows = _as_logits(logits, len(ids))
    if not isinstance(top_k, int) or top_k < 1:
        raise ProbeShapeError(f"top_k: {top_k!r}; keep at least 1 (token id, logit) pair per step")
    k = min(top_k, rows.shape[1])
    order = np.argsort(-rows, axis=1, kind="stable")  # ties: lowest id first
    top_ids = order[:, :k]
    top_values = np.take_along_axis(rows, top_ids, axis=1)
    two = np.take_along_axis(rows, order[:, :2], axis=1).astype(np.float64)
    margins = (two[:, 0] - two[:, 1]).tolist()
    return {
        "tokens": ids,
        "margins": [float(m) for m in margins],
        "digests": {"logits": logits_digest(rows), "stream": stream_digest(ids)},
        "cases": {f"pos-{i}": logits_digest(rows[i]) for i in range(len(ids))},
        "logits": {
            "steps": len(ids), "vocab": int(rows.shape[1]), "top_k": k,
            "ids": top_ids.astype(int).tolist(),
            "values": [[float(v) for v in row] for row in top_values],
        },
        "meta": {**build_meta(engine=engine, model=model, source_tree=source_tree, knobs=knobs), **dict(meta or {})},
    }


def serve(function: Callable[..., Any]) -> int:
    """The worker side of ``probe = { cmd = [...], worker = true }`` (vtgate.run.workers): for each line
    ``{"args": {...}}`` on stdin, call ``function(**args)`` and print its observation as one JSON line
    (a ``(tokens, logits)`` pair goes through ``observation``). A call that fails, or returns a field
    of the wrong type, answers ``{"vtgate_error": "..."}`` and the worker serves on; it exits when
    stdin closes. Whatever the function prints goes to stderr, so stdout carries only answers."""
    sys.stdout.flush()
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            result = function(**request.get("args", {}))
            if isinstance(result, tuple) and len(result) == 2:
                result = observation(*result)
            problems = observation_problems(result)
            text = json.dumps({"vtgate_error": "; ".join(problems)} if problems else result, allow_nan=False)
        except Exception:  # noqa: BLE001 - reported to vtgate as this run's error; the worker serves on
            text = json.dumps({"vtgate_error": traceback.format_exc(limit=5).strip()})
        answers.write(text + "\n")
        answers.flush()
    return 0


# -- transformers adapters (torch imported here only) --------------------------------------------------


def _load(model: Any, tokenizer: Any) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer  # type: ignore[import-not-found]

    if isinstance(model, str):
        name = model
        model = AutoModelForCausalLM.from_pretrained(name)
        tokenizer = tokenizer or AutoTokenizer.from_pretrained(name)
    if tokenizer is None:
        raise ProbeShapeError("tokenizer: a model object needs its tokenizer (tokenizer=...)")
    model.eval()
    return model, tokenizer


def _model_meta(model: Any) -> dict[str, Any]:
    config = getattr(model, "config", None)
    return {"model": getattr(config, "_name_or_path", None) or type(model).__name__,
            "dtype": str(getattr(model, "dtype", "")),
            "attn_implementation": getattr(config, "_attn_implementation", None)}


def generate(model: Any, prompt: str, tokens: int, *, tokenizer: Any = None, top_k: int = DEFAULT_TOP_K,
             source_tree: str | Path | None = None) -> dict[str, Any]:
    """Greedy decoding of ``tokens`` new tokens with a transformers causal LM (an object, or a name
    for ``from_pretrained``): the observation of the generated ids and the logits each was chosen from."""
    import torch  # type: ignore[import-not-found, unused-ignore]  # torch is optional: absent here, typed where present

    model, tokenizer = _load(model, tokenizer)
    encoded = tokenizer(prompt, return_tensors="pt")
    with torch.no_grad():
        out = model.generate(**encoded, max_new_tokens=int(tokens), min_new_tokens=int(tokens), do_sample=False,
                             output_scores=True, output_logits=True, return_dict_in_generate=True)
    steps = getattr(out, "logits", None) or out.scores  # raw logits where transformers offers them
    logits = torch.stack([s[0] for s in steps]).float().cpu().numpy()
    new_ids = out.sequences[0, encoded["input_ids"].shape[1]:].tolist()
    extra = {"engine": "transformers", **_model_meta(model)}
    return observation(new_ids, logits, top_k=top_k, source_tree=source_tree, meta=extra)


def teacher_forced(model: Any, prompt: str, reference: str, *, tokenizer: Any = None, top_k: int = DEFAULT_TOP_K,
                   source_tree: str | Path | None = None) -> dict[str, Any]:
    """One forward pass over prompt + reference: at each position of the reference, the argmax token
    and the logits row that predicted it (an argmax chain, docs/contracts.md section 5)."""
    import torch  # type: ignore[import-not-found, unused-ignore]  # torch is optional: absent here, typed where present

    model, tokenizer = _load(model, tokenizer)
    prompt_ids = tokenizer(prompt, return_tensors="pt")["input_ids"]
    reference_ids = tokenizer(reference, return_tensors="pt", add_special_tokens=False)["input_ids"]
    ids = torch.cat([prompt_ids, reference_ids], dim=1)
    with torch.no_grad():
        logits = model(ids).logits[0].float().cpu().numpy()
    start = prompt_ids.shape[1] - 1  # the row predicting the first reference token
    rows = logits[start:start + reference_ids.shape[1]]
    argmax = rows.argmax(axis=1).tolist()
    extra = {"engine": "transformers", **_model_meta(model)}
    return observation(argmax, rows, top_k=top_k, source_tree=source_tree, meta=extra)
