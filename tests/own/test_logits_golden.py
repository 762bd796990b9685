"""golden mode = "logits": exact (per-step digests) and tolerant (atol/rtol over the stored reference
top-k values, top-k agreement) logits goldens, blessed and checked through the real CLI on a
command-line engine; the verdict names the first divergent step and the size of the divergence."""

from __future__ import annotations

import numpy as np
import pytest
from vtgate.kinds import get_kind
from vtgate.probe import observation
from vtgate.suite.records import GateSpec

GATES = """\
[[gate]]
name  = "logits-exact"
kind  = "golden"
mode  = "logits"
probe = { cmd = ["{python}", "engine/tinyengine.py"] }
args  = { prompt = "hi", tokens = 12 }

[[gate]]
name  = "logits-close"
kind  = "golden"
mode  = "logits"
atol  = 1e-3
top_k = 5
probe = { cmd = ["{python}", "engine/tinyengine.py"] }
args  = { prompt = "hi", tokens = 12 }
"""


def _by_name(report: dict) -> dict:
    return {gate["name"]: gate for gate in report["gates"]}


def test_blessed_logits_golden_is_green_and_stores_steps_values_and_provenance(project) -> None:
    project.write_suite(GATES)
    project.bless("logits-exact", "logits-close")
    golden = project.golden("logits-close")
    assert len(golden["value"]["steps"]) == 12
    assert len(golden["value"]["logits"]["ids"]) == 12 and len(golden["value"]["logits"]["values"][0]) == 20
    assert golden["provenance"]["reason"] == "first measurement"
    assert golden["provenance"]["engine"]["engine"] == "tinyengine"
    done, report = project.check_json()
    assert done.returncode == 0, done.stderr
    gates = _by_name(report)
    assert gates["logits-exact"]["summary"].startswith("12/12 steps bit-identical")
    assert gates["logits-close"]["summary"].startswith("12/12 steps within tolerance abs 0.001")


def test_a_tiny_numeric_change_is_red_exactly_and_green_within_tolerance(project) -> None:
    project.write_suite(GATES)
    project.bless("logits-exact", "logits-close")
    done, report = project.check_json(env={"TINY_ATTN_IMPL": "sdpa"})
    assert done.returncode == 1
    gates = _by_name(report)
    assert gates["logits-exact"]["status"] == "red"
    assert gates["logits-exact"]["summary"].startswith("logits differ from step 0: max abs ")
    assert "(exact)" in gates["logits-exact"]["summary"]
    assert "12 of 12 steps differ; top-5 agree 12/12" in gates["logits-exact"]["summary"]
    assert gates["logits-close"]["status"] == "green"


def test_a_real_divergence_is_red_within_tolerance_too(project) -> None:
    project.write_suite(GATES)
    project.bless("logits-exact", "logits-close")
    done, report = project.check_json(env={"TINY_FAST_EXP": "1"})
    gate = _by_name(report)["logits-close"]
    assert gate["status"] == "red"
    assert gate["summary"].startswith("logits differ from step 0: ")
    assert "(tolerance abs 0.001)" in gate["summary"]
    assert "top-5 agree" in gate["summary"]


def test_tolerant_mode_without_logits_values_is_an_error_naming_the_field(project) -> None:
    project.write_suite("""\
    [[gate]]
    name  = "bare"
    kind  = "golden"
    mode  = "logits"
    atol  = 1e-3
    probe = { cmd = ["{python}", "-c", "import json; print(json.dumps({'cases': {'pos-0': 'ab'}}))"] }
    """, header="[suite]\ntimeout = 60\n")
    done = project.vtgate("bless", "bare", "--reason", "x")
    assert done.returncode == 3
    assert "no 'logits'" in done.stderr


def test_logits_options_outside_logits_mode_are_configuration_errors(project) -> None:
    project.write_suite("""\
    [[gate]]
    name  = "strict-with-atol"
    kind  = "golden"
    atol  = 1e-3
    probe = { cmd = ["{python}", "engine/tinyengine.py"] }
    """)
    done = project.vtgate("check")
    assert done.returncode == 2
    assert "atol only applies to mode = 'logits'" in done.stderr


def _spec(**options) -> GateSpec:
    from pathlib import Path

    return GateSpec(name="g", kind="golden", probe=None, args={}, env={}, env_reason=None, tier="default",
                    golden=None, deliberate_red=None, timeout=10, options={"mode": "logits", **options},
                    line=None, source=Path("vtgate.toml"))


def _rows(steps: int = 10, vocab: int = 32) -> np.ndarray:
    return (np.arange(steps * vocab, dtype=np.float64).reshape(steps, vocab) % 7 + np.arange(vocab) * 0.1).astype(np.float32)


@pytest.mark.parametrize("options", [{}, {"atol": 1e-3}])
def test_the_verdict_names_the_first_divergent_step_and_its_size(options) -> None:
    kind = get_kind("golden")
    rows = _rows()
    tokens = rows.argmax(axis=1).tolist()
    reference = observation(tokens, rows)
    pin = kind.pin_from(_spec(**options), {"baseline": reference})
    moved = rows.copy()
    moved[7, int(moved[7].argmax())] += np.float32(3.1e-3)
    verdict = kind.evaluate(_spec(**options), pin, {"baseline": observation(tokens, moved)})
    assert not verdict.passed
    assert verdict.summary.startswith("logits differ from step 7: max abs 0.0031")
    assert "1 of 10 steps differ; top-5 agree 10/10" in verdict.summary
    assert verdict.cases is not None and verdict.cases.failed_ids == ("pos-7",)


def test_top_k_agreement_is_enforced_when_asked() -> None:
    kind = get_kind("golden")
    rows = _rows(vocab=8)  # every id is kept (top 20 of 8), so only the order can change
    tokens = rows.argmax(axis=1).tolist()
    spec = _spec(atol=10.0, top_k=3, min_top_k_agree=1.0)
    pin = kind.pin_from(spec, {"baseline": observation(tokens, rows)})
    shuffled = rows.copy()
    lowest = int(rows[2].argmin())
    shuffled[2, lowest] = rows[2].max() + 1  # within 10 of the reference, but a new id enters the top 3
    verdict = kind.evaluate(spec, pin, {"baseline": observation(tokens, shuffled)})
    assert not verdict.passed
    assert "top-3 agree 9/10 [required: 10]" in verdict.summary
