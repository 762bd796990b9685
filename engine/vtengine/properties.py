"""The property layer: each seeded draw (:mod:`vtengine.draws`) is checked against

(a) the float64 reference (:mod:`vtengine.reference`) with a derived tolerance: the reference run
    ``NOISY_RUNS`` times with each rounding point's error bound applied as uniform noise; the
    tolerance is ``SAFETY`` times the largest logit deviation those runs show (how far errors of the
    engine's own sizes, at the engine's own places, carry through this network), and
(b) the engine's exactness contracts under the draw's knobs (every arm but BLAS, whose order the
    host picks): incremental decode equals full recompute, n-gram speculative decoding equals greedy,
    a sequence decoded in a batch beside
    others equals it decoded alone, the thread count, KV block size and dequant budget change
    no bit, and an engine built with ``max_tokens`` equal to the positions a call uses runs it (with
    the same bits); and, under every knob row, the weights depend on the config's seed.

A verdict per draw names the check that failed; :func:`check` never raises for an engine error
(a crash is a verdict too: the engine refused or broke on an input it accepts).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from vtengine import reference
from vtengine.config import ModelConfig
from vtengine.draws import KNOB_VALUES, Draw, describe, draws, knobs_of, shrink_config
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import Model, generate_tensors
from vtengine.numerics import BF16, FP8

NOISY_RUNS = 3
SAFETY = 4.0  # margin over the worst of NOISY_RUNS noisy runs (their spread is a sample, not a bound)


def stored_tensors(d: Draw) -> dict[str, np.ndarray]:
    """The draw's weights (generated from its seed) as a checkpoint stores them in its dtype."""
    tensors = generate_tensors(d.config)
    if d.dtype == "bf16":
        return {n: t.astype(BF16) for n, t in tensors.items()}
    if d.dtype == "f16":
        return {n: t.astype(np.float16) for n, t in tensors.items()}
    return tensors


def build_model(d: Draw) -> Model:
    """The draw's weights held in its checkpoint dtype (fp8: quantized into 128x128 blocks)."""
    return Model(d.config, stored_tensors(d), quantize=d.dtype == "fp8")


def reference_values(d: Draw, model: Model) -> dict[str, np.ndarray]:
    """float64 values of the weights as stored, converted here, not read back from the engine's
    Model (a bug in how the engine holds a dtype then shows as a reference failure); fp8 weights are
    the model's codes times their block scales in float32, rounded to bf16 (QuantizedWeight.dequantize),
    dequantized here."""
    if d.dtype != "fp8":
        values = {n: t.astype(np.float64) for n, t in stored_tensors(d).items()}
    else:
        values = {}
        for name, weight in model.weights.items():
            codes = getattr(weight, "codes", None)
            if codes is None:
                values[name] = np.asarray(weight, np.float64)
                continue
            scales = np.repeat(np.repeat(weight.scales, 128, axis=0), 128, axis=1)  # type: ignore[union-attr]
            product = codes.view(FP8).astype(np.float32) * scales[: codes.shape[0], : codes.shape[1]]
            values[name] = product.astype(BF16).astype(np.float64)  # documented: float32 product, then bf16
    if d.config.tie_word_embeddings:
        values.pop("lm_head.weight", None)
    return values


def tolerance(model: Model, ids: list[int], bf16: bool, seed: int, runs: int = NOISY_RUNS,
              tensors: dict[str, np.ndarray] | None = None) -> tuple[np.ndarray, float]:
    """The exact float64 logits and the derived tolerance (max abs logit) for ``ids`` from ``runs``
    noisy runs, on ``tensors`` (default: the model's own float32 values)."""
    tensors = tensors if tensors is not None else model.dequantized_tensors()
    exact = reference.forward(model.config, tensors, ids, bf16)
    rng = np.random.Generator(np.random.PCG64(seed))

    def noise(y: np.ndarray, bound: np.ndarray) -> np.ndarray:
        return y + bound * rng.uniform(-1.0, 1.0, np.shape(y))

    spread = max(float(np.abs(reference.forward(model.config, tensors, ids, bf16, noise) - exact).max())
                 for _ in range(runs))
    return exact, SAFETY * spread


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a.view(np.uint32), b.view(np.uint32)))


def contracts(model: Model, knobs: Knobs, d: Draw) -> dict[str, bool]:
    """Each exactness contract under ``knobs``: True when it holds on this draw."""
    engine = Engine(model, knobs)
    alone = engine.generate(d.prompt, d.steps).logits
    out = {"incremental_equals_recompute": _same(alone, engine.generate_recompute(d.prompt, d.steps).logits)}
    greedy = [int(t) for t in alone.argmax(axis=1)]
    out["speculative_equals_greedy"] = engine.speculative(d.prompt, d.steps, ngram=1).tokens == greedy
    steps = min(d.steps, *(model.config.max_context - len(o) + 1 for o in d.others))
    batched = engine.generate_batch([d.prompt, *d.others], steps)
    out["batch_equals_alone"] = _same(batched[0].logits, alone[:steps])
    engine.close()
    # An explicit max_tokens is a limit kept exactly: a sequence of that many positions fits whatever
    # block size divides it (or does not), with the bits of the growing default cache.
    limited = Engine(model, knobs, max_tokens=len(d.prompt) + d.steps - 1)
    try:
        out["max_tokens_holds_that_many"] = _same(limited.generate(d.prompt, d.steps).logits, alone)
    except MemoryError:
        out["max_tokens_holds_that_many"] = False
    limited.close()
    variants = {"threads": replace(knobs, cpu_threads=3 - knobs.cpu_threads),
                "block_size": replace(knobs, kv_block_size=5 if knobs.kv_block_size != 5 else 2),
                "dequant_budget": replace(knobs, dequant_cache_mb=0 if knobs.dequant_cache_mb else 64)}
    for name, changed in variants.items():
        other = Engine(model, changed)
        out[f"{name}_change_no_bit"] = _same(other.generate(d.prompt, d.steps).logits, alone)
        other.close()
    return out


def _seed_decides_weights(config: ModelConfig) -> bool:
    """Another seed, every other field the same, gives other weights: every matrix differs (the norm
    vectors are bf16 values near 1, which two seeds can share by chance, and are left out)."""
    mine, other = generate_tensors(config), generate_tensors(replace(config, seed=config.seed + 1))
    return all(not np.array_equal(mine[name], other[name]) for name in mine if not name.endswith("norm.weight"))


def _guarded(action: Callable[[], Any]) -> tuple[Any, str | None]:
    try:
        return action(), None
    except Exception as error:  # the engine broke on an input it accepts: that is the verdict
        return None, f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"


def check(d: Draw, seed: int) -> dict[str, Any]:
    """One draw's verdict: ``ok``, which checks failed, the reference error over the tolerance."""
    knobs = knobs_of(d.knobs)
    model, crash = _guarded(lambda: build_model(d))
    if crash:
        return {"ok": False, "failed": [f"build: {crash}"], "ratio": None}
    exact, tol = tolerance(model, d.prompt, knobs.act_dtype == "bf16", seed + d.index,
                           tensors=reference_values(d, model))
    failed = [] if _seed_decides_weights(d.config) else ["seed_decides_weights"]
    engine = Engine(model, knobs)
    logits, crash = _guarded(lambda: engine.forward_logits(d.prompt))
    engine.close()
    ratio = None
    if crash:
        failed.append(f"forward: {crash}")
    else:
        error = float(np.abs(logits.astype(np.float64) - exact).max())
        ratio = error / tol if tol > 0 else (0.0 if error == 0 else float("inf"))
        if ratio > 1.0:
            failed.append("reference")
    if not knobs.gemv_blas:
        held, crash = _guarded(lambda: contracts(model, knobs, d))
        if crash:
            failed.append(f"contracts: {crash}")
        else:
            failed += [name for name, ok in held.items() if not ok]
    return {"ok": not failed, "failed": failed, "ratio": ratio}


def _smaller(d: Draw) -> list[Draw]:
    """One-step-smaller neighbours of a draw: a smaller shape, a shorter prompt, fewer steps."""
    out = [replace(d, config=c, prompt=[t % c.vocab_size for t in d.prompt],
                   others=tuple([t % c.vocab_size for t in o] for o in d.others)) for c in shrink_config(d.config)]
    if len(d.prompt) > 1:
        out.append(replace(d, prompt=d.prompt[:-1]))
    if d.steps > 1:
        out.append(replace(d, steps=d.steps - 1))
    if any(len(o) > 1 for o in d.others):
        out.append(replace(d, others=tuple(o[:1] for o in d.others)))
    return out


def shrink(d: Draw, seed: int, budget: int = 40) -> Draw:
    """The smallest neighbour chain of a failing draw that still fails (greedy, ``budget`` checks)."""
    for _ in range(budget):
        for candidate in _smaller(d):
            budget -= 1
            if not check(candidate, seed)["ok"]:
                d = candidate
                break
        else:
            return d
        if budget <= 0:
            break
    return d


def _pinned(name: str, knobs: dict[str, str], prompt: list[int], steps: int, d_ff: int = 4,
            others: tuple[list[int], ...] = ([1], [0])) -> Draw:
    config = ModelConfig(name=name, vocab_size=3, d_model=2, n_layers=1, n_heads=1, n_kv_heads=1, d_ff=d_ff,
                         max_context=4, seed=1)
    return Draw(-1, config, "fp8", {**DEFAULT_ROW, **knobs}, prompt, steps, others)


DEFAULT_ROW = {name: values[0] if name != "VT_DEQUANT_CACHE_MB" else "64" for name, values in KNOB_VALUES.items()}
DEFAULT_ROW["VT_KV_BLOCK_SIZE"] = "16"

# Counterexamples the draws found, shrunk to the smallest shape that still failed, each kept with why.
PINNED: dict[str, tuple[Draw, str]] = {
    "gemv-bf16-dot-odd-width": (
        _pinned("odd-width", {"VT_CPU_GEMV_BF16_DOT": "1"}, [0, 1], 1, d_ff=3),
        "the bf16 pair-dot GEMV crashed on an odd K (a SwiGLU width of 3)"),
    "kv-default-batch-of-three": (
        _pinned("batch-of-three", {}, [2], 1),
        "the default KV cache (4 x a 4-position context, one 16-position block) refused a batch of three"),
    "speculative-past-context": (
        _pinned("spec-limit", {}, [0], 4),
        "speculative decoding fed a draft token at position max_context when greedy ends at the limit"),
}


def run(seed: int, count: int) -> dict[str, Any]:
    """Every draw of ``seed`` and every pinned case checked; failing draws shrunk."""
    cases: dict[str, str] = {}
    counters = {"draws": 0, "draws_ok": 0, "reference_failed": 0, "contract_failed": 0, "crashed": 0,
                "pinned": len(PINNED), "pinned_ok": 0}
    worst = 0.0
    drawn = draws(seed, count)
    for d in drawn:
        verdict = check(d, seed)
        counters["draws"] += 1
        counters["draws_ok"] += int(verdict["ok"])
        counters["reference_failed"] += int("reference" in verdict["failed"])
        counters["crashed"] += int(any(":" in f for f in verdict["failed"]))
        counters["contract_failed"] += int(any(":" not in f and f != "reference" for f in verdict["failed"]))
        worst = max(worst, verdict["ratio"] or 0.0)
        if not verdict["ok"]:
            small = shrink(d, seed)
            cases[f"draw {d.index}"] = f"{'; '.join(verdict['failed'])} | shrunk: {json.dumps(describe(small))}"
    for name, (d, _why) in PINNED.items():
        verdict = check(d, seed)
        counters["pinned_ok"] += int(verdict["ok"])
        cases[f"pinned {name}"] = "ok" if verdict["ok"] else "; ".join(verdict["failed"])
    rows = {json.dumps(d.knobs, sort_keys=True) for d in drawn}
    counters["knob_rows"] = len(rows)
    return {"counters": counters, "metrics": {"worst_error_over_tolerance": worst}, "cases": cases,
            "provenance": {"seed": seed, "count": count, "draws": [describe(d) for d in drawn],
                           "noisy_runs": NOISY_RUNS, "safety": SAFETY}}
