"""The perf kind's judgement of a leg runner's record, on synthetic records (pure: no probe runs),
and the interleaved leg order."""

from __future__ import annotations

from pathlib import Path

import pytest
from vtgate.errors import GateError
from vtgate.kinds import get_kind
from vtgate.perf.legs import block_order, leg_order, start_order, warmup_order
from vtgate.suite.records import GateSpec, ProbeRef

OUTPUTS = {"tokens": [1, 2, 3]}
PIN = {"candidate": OUTPUTS, "reference": OUTPUTS}


def spec(**options) -> GateSpec:
    merged = {"metric": "timing.tok_s", "min_ratio": 0.95, "reference": {"env": {"ARM": "0"}}, **options}
    return GateSpec(name="p", kind="perf", probe=ProbeRef(callable="m:f"), args={}, env={}, env_reason=None,
                    tier="perf", golden=None, deliberate_red=None, timeout=60.0, options=merged, line=3,
                    source=Path("gates.toml"))


def record(candidate: list[float], reference: list[float], outcome: str = "measured", **extra) -> dict:
    legs = []
    for number, (c, r) in enumerate(zip(candidate, reference, strict=True)):
        for role, value in (("candidate", c), ("reference", r)):
            legs.append({"index": len(legs), "role": role, "round": number, "value": value, "outputs": OUTPUTS,
                         "host": {"load_per_core": 0.2}, "stages": None})
    return {"legs": {"outcome": outcome, "problem": None, "legs": legs, "policy": {"enforce": True},
                     "reference": {"env": {"ARM": "0"}}, **extra}}


def test_legs_interleave_after_the_warm_up_pairs():
    assert leg_order(3, 1) == [("candidate", None), ("reference", None), ("candidate", 0), ("reference", 0),
                               ("reference", 1), ("candidate", 1), ("candidate", 2), ("reference", 2)]


def test_an_interval_straddling_the_threshold_is_inconclusive_with_its_numbers():
    cand = [93.0, 99.0, 94.0, 99.5, 95.0, 100.0]  # about 3% slower, spread over the 0.95 line
    with pytest.raises(GateError) as caught:
        get_kind("perf").evaluate(spec(rounds=6, looks=1), PIN, record(cand, [100.0] * 6))
    assert caught.value.kind == "inconclusive"
    assert caught.value.message.startswith("inconclusive: ratio 0.967, 95% one-sided interval [0.940, 0.995] straddles 0.95")


def test_each_round_runs_in_the_next_warm_process_pair_with_the_order_alternating():
    assert block_order(0, 4, 3) == [("candidate", 0, 0), ("reference", 0, 0), ("reference", 1, 1), ("candidate", 1, 1),
                                    ("candidate", 2, 2), ("reference", 2, 2), ("reference", 3, 0), ("candidate", 3, 0)]
    # the process started and warmed first alternates between the roles pair by pair
    assert warmup_order(1, 2) == [("candidate", None, 0), ("reference", None, 0), ("reference", None, 1),
                                  ("candidate", None, 1)]
    assert [start_order(worker) for worker in range(3)] == [("candidate", "reference"), ("reference", "candidate"),
                                                            ("candidate", "reference")]


def test_a_look_that_straddles_is_followed_by_the_next_block_and_the_verdict_names_its_look():
    straddling = [91.0, 99.0, 92.0, 98.0, 93.0, 97.0]
    slower = [90.0, 90.5, 89.5, 90.2, 89.8, 90.1]
    verdict = get_kind("perf").evaluate(spec(rounds=6, looks=3), PIN, record(straddling + slower, [100.0] * 12))
    assert not verdict.passed
    assert [(look["rounds"], look["decision"]) for look in verdict.measured["looks"]] == [(6, "inconclusive"), (12, "fail")]
    assert verdict.measured["look_confidence"] == pytest.approx(1 - 0.05 / 3)
    assert "; 12 rounds (24 legs + 0 warm-up), look 2 of 3 (95% over all looks, Bonferroni)" in verdict.summary


def test_the_verdict_is_the_first_look_that_decides_even_if_more_rounds_were_recorded():
    faster = [100.0, 101.0, 99.5, 100.5, 100.0, 100.2]
    verdict = get_kind("perf").evaluate(spec(rounds=6, looks=2), PIN, record(faster + [50.0] * 6, [100.0] * 12))
    assert verdict.passed and verdict.measured["rounds"] == 6


def test_seconds_per_call_slower_candidate_is_red():
    verdict = get_kind("perf").evaluate(spec(better="lower", rounds=3), PIN, record([1.3, 1.31, 1.29], [1.0, 1.01, 0.99]))
    assert not verdict.passed and verdict.measured["ratio"] < 0.8


def test_a_noisy_outcome_is_an_error_naming_the_leg_and_what_was_noisy():
    noisy = record([], [], outcome="noisy", problem="processes outside the gate used 0.52 CPU/core on 2 cores "
                   "over 0.25 s > 0.25 (busiest: pid 4242 burner 99% of a core)", noisy_leg=0)
    noisy["legs"]["legs"] = [{"index": 0, "role": "candidate", "round": None, "host": {"load_per_core": 3.5}}]
    with pytest.raises(GateError) as caught:
        get_kind("perf").evaluate(spec(), PIN, noisy)
    assert caught.value.kind == "noisy"
    assert "host not quiet before leg 0 (candidate, warm-up): processes outside the gate used 0.52" in caught.value.message
    assert "pid 4242 burner" in caught.value.message and "--wait-quiet" in caught.value.message


def test_a_pin_without_the_reference_outputs_asks_for_a_bless():
    with pytest.raises(GateError) as caught:
        get_kind("perf").evaluate(spec(), {"candidate": OUTPUTS}, record([1.0, 1.0], [1.0, 1.0]))
    assert caught.value.kind == "golden" and "vtgate bless p" in caught.value.message
