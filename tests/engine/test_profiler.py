"""The stage profiler: off by default (no profiler object), on with VT_PROFILE, split by phase."""

from __future__ import annotations

from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import Model


def test_profiler_is_absent_when_off(tiny: Model) -> None:
    assert Engine(tiny, Knobs()).prof is None


def test_profiler_attributes_stages_to_prefill_and_decode(tiny: Model, prompt_ids: list[int]) -> None:
    engine = Engine(tiny, Knobs(profile=True))
    engine.generate(prompt_ids, 4)
    rows = engine.prof.table()
    stages = {(r["phase"], r["stage"]) for r in rows}
    for phase in ("prefill", "decode"):
        for stage in ("linear", "attention", "rope", "lm_head", "norms"):
            assert (phase, stage) in stages
    assert ("prefill", "dequant") in stages
    assert engine.prof.tokens == {"prefill": len(prompt_ids), "decode": 3}
    decode_linear = next(r for r in rows if r["phase"] == "decode" and r["stage"] == "linear")
    assert decode_linear["calls"] == 3 * 4 * tiny.config.n_layers
    assert abs(sum(r["share"] for r in rows if r["phase"] == "decode") - 1.0) < 1e-9
