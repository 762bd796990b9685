"""Whether an opt-in arm changes any bit of the engine's logits on this machine: the measurement behind
``vtengine arms --json``'s ``differs_here``. It runs the engine, so it lives above it (the arm registry,
``vtengine.arms``, is data the engine itself reads)."""

from __future__ import annotations

import numpy as np

from vtengine import tokenizer
from vtengine.arms import Arm
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import load_model

# the Knobs field each opt-in knob sets (the arm is switched on directly, not through the environment,
# so a knob the engine stopped reading cannot make the measurement below agree with the default)
KNOB_FIELDS: dict[str, str] = {
    "VT_CPU_PAGED_ATTN_SCALAR_FMA": "paged_attn_scalar_fma",
    "VT_CPU_PAGED_ATTN_BFDOT": "paged_attn_bfdot",
    "VT_CPU_GEMV_BF16_DOT": "gemv_bf16_dot",
    "VT_CPU_GEMV_BLAS": "gemv_blas",
}


def differs_here(candidate: Arm, knobs: Knobs, model: str = "vt-tiny") -> bool:
    """Whether switching ``candidate`` on changes any bit of the engine's logits on this machine,
    under ``knobs`` (the environment's threads and budgets): vt-tiny run the ways the gates run it, a
    prompt's prefill and greedy decode (one row at a time), a batch of three, and full recompute."""
    if candidate.knob is None:
        return False
    weights = load_model(model, knobs.cache_path)
    prompts = [tokenizer.encode(text) for text in ("bench", "Once upon a time", "1 2 3 4 5")]

    def logits(engine_knobs: Knobs) -> list[np.ndarray]:
        engine = Engine(weights, engine_knobs)
        try:
            alone = engine.generate(prompts[0], 4).logits
            batch = [g.logits for g in engine.generate_batch(prompts, 2)]
            recompute = engine.generate_recompute(prompts[1], 2).logits
        finally:
            engine.close()
        return [alone, *batch, recompute]

    default = logits(knobs.with_(**dict.fromkeys(KNOB_FIELDS.values(), False)))
    switched = logits(knobs.with_(**{KNOB_FIELDS[candidate.knob]: True}))
    return any(a.shape != b.shape or a.tobytes() != b.tobytes() for a, b in zip(default, switched, strict=True))
