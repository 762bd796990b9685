"""The built-in negative controls, pure: each kind gets the perturbations the issue names, with the
outcome the gate's own declared tolerance implies, and re-judging them needs no probe run."""

from __future__ import annotations

from pathlib import Path

from vtgate.mutate.controls import apply_change, controls_for
from vtgate.run.check import evaluate_gate
from vtgate.suite.records import GateSpec, ProbeRef


def _spec(kind: str, **options: object) -> GateSpec:
    return GateSpec(name="g", kind=kind, probe=ProbeRef(callable="m:f"), args={}, env={}, env_reason=None,
                    tier="default", golden=None, deliberate_red=None, timeout=10.0, options=options, line=1,
                    source=Path("vtgate.toml"))


TOKENS = [10, 11, 12, 13, 14, 15]
MARGINS = [0.5, 0.01, 0.9, 0.02, 0.4, 0.3]
OBS = {"baseline": {"tokens": TOKENS}}
PIN = {"tokens": TOKENS, "margins": MARGINS}


def _judged(spec: GateSpec, pin: dict, observations: dict) -> dict[str, tuple[str, str]]:
    out = {}
    for control in controls_for(spec, pin, observations):
        new_pin, new_obs = apply_change(control.change, pin, observations)
        status = "green" if evaluate_gate(spec, new_pin, new_obs).verdict.passed else "red"
        out[control.name] = (control.expected, status)
    return out


def test_strict_golden_swaps_the_lowest_and_highest_margin_tokens() -> None:
    controls = {c.name: c for c in controls_for(_spec("golden", mode="strict"), PIN, OBS)}
    assert set(controls) == {"g:swap-low-margin", "g:swap-high-margin"}
    assert controls["g:swap-low-margin"].change.edits[0].path == ("tokens", 1)   # margin 0.01
    assert controls["g:swap-high-margin"].change.edits[0].path == ("tokens", 2)  # margin 0.9
    assert _judged(_spec("golden", mode="strict"), PIN, OBS) == {
        "g:swap-low-margin": ("red", "red"), "g:swap-high-margin": ("red", "red")}


def test_teacher_forced_near_ties_tolerated_up_to_the_limit_and_red_one_past_it() -> None:
    spec = _spec("golden", mode="teacher-forced", near_tie_eps=0.05, max_near_tie_flips=1, max_hard_flips=0)
    assert _judged(spec, PIN, OBS) == {
        "g:swap-low-margin": ("green", "green"),      # one near tie is allowed
        "g:near-tie-limit+1": ("red", "red"),         # two are not
        "g:swap-high-margin": ("red", "red"),         # no hard flip is allowed
    }


def test_floor_green_at_its_edge_and_red_one_past_it() -> None:
    spec = _spec("golden", mode="floor", min_exact=4)
    assert _judged(spec, PIN, OBS) == {"g:floor-edge": ("green", "green"), "g:floor-edge+1": ("red", "red")}


def test_anchor_digest_number_and_each_anchor_token_perturbed() -> None:
    pin = {"digest": "ab" * 32, "anchor": 11622, "length": 6, "tokens": TOKENS, "anchors": {"1": 11, "4": 14}}
    obs = {"baseline": {"tokens": TOKENS, "digests": {"stream": "ab" * 32}, "metrics": {"anchor": 11622}}}
    judged = _judged(_spec("anchor", positions=[1, 4]), pin, obs)
    assert judged == {"g:digest": ("red", "red"), "g:anchor": ("red", "red"),
                      "g:anchor-token-1": ("red", "red"), "g:anchor-token-4": ("red", "red")}


def test_band_edges_inside_green_and_just_outside_red_for_floats_too() -> None:
    spec = _spec("band", bands={"acceptance": [0.25, 0.5]})
    obs = {"baseline": {"metrics": {"acceptance": 0.3}}}
    judged = _judged(spec, {"acceptance": [0.25, 0.5]}, obs)
    assert judged == {"g:acceptance:lo": ("green", "green"), "g:acceptance:below-lo": ("red", "red"),
                      "g:acceptance:hi": ("green", "green"), "g:acceptance:above-hi": ("red", "red")}


def test_bitident_alters_one_case_of_the_second_run_only() -> None:
    spec = _spec("bitident", configs={"a": {"args": {"impl": "x"}}, "b": {"args": {"impl": "y"}}})
    obs = {"a": {"cases": {"c1": "aa11", "c2": "bb22"}}, "b": {"cases": {"c1": "aa11", "c2": "bb22"}}}
    (control,) = controls_for(spec, {}, obs)
    _, changed = apply_change(control.change, {}, obs)
    assert changed["a"] == obs["a"] and changed["b"]["cases"]["c1"] != "aa11" and changed["b"]["cases"]["c2"] == "bb22"
    assert obs["b"]["cases"]["c1"] == "aa11"  # the baseline observations are left alone
    assert _judged(spec, {}, obs) == {"g:case-altered": ("red", "red")}


def test_counters_each_pinned_counter_moved_by_one() -> None:
    spec = _spec("counters")
    pin = {"baseline": {"hits": 5, "misses": 2}}
    obs = {"baseline": {"counters": {"hits": 5, "misses": 2}}}
    assert _judged(spec, pin, obs) == {"g:baseline/hits+1": ("red", "red"), "g:baseline/misses+1": ("red", "red")}


def test_counters_controls_cover_every_run_not_only_the_first() -> None:
    spec = _spec("counters", over={"B": ["0", "1"]})
    pin = {"B=0": {"hits": 0}, "B=1": {"hits": 4}}
    obs = {"B=0": {"counters": {"hits": 0}}, "B=1": {"counters": {"hits": 4}}}
    assert _judged(spec, pin, obs) == {"g:B=0/hits+1": ("red", "red"), "g:B=1/hits+1": ("red", "red")}


def test_snapshot_first_and_last_pinned_call_altered_and_one_call_not_pinned() -> None:
    spec = _spec("snapshot")
    cases = {"a/1": "ok int:1", "b/2": "raises ValueError: no", "c/3": "ok str:\"x\""}
    assert _judged(spec, {"cases": cases}, {"baseline": {"cases": dict(cases)}}) == {
        "g:call-first": ("red", "red"), "g:call-last": ("red", "red"), "g:call-not-pinned": ("red", "red")}
