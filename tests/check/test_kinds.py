"""Each gate kind goes green on a pinned behaviour and red, with a verdict in its own terms, when the
fake engine's behaviour really changes (an env knob switching its arm, as a mutation would set it)."""

from __future__ import annotations

from vtgate.run.check import run_check

GEN = 'probe = "fakeengine:generate"\nargs = { prompt = "hello", tokens = 12 }\n'


def _one(project, extra_env=None, name=None):
    report = run_check(project.suite(), extra_env=extra_env)
    return report.gate(name) if name else report.gates[0]


def test_strict_golden_green_then_red_with_first_divergence(project) -> None:
    project.write_suite('[[gate]]\nname = "strict"\nkind = "golden"\n' + GEN)
    project.bless("strict")
    assert _one(project).summary == "12/12 exact"
    assert _one(project).status == "green"
    red = _one(project, {"FAKE_FLIP": "6"})
    assert red.status == "red"
    golden = project.golden("strict")["value"]["tokens"]
    assert red.summary == f"11/12 exact — first divergence at position 6: token {golden[6]} -> {(golden[6] + 1) % 97}, golden margin 0.5"
    assert red.verdict.cases.failed_ids == ("pos-6",)


def test_floor_golden_tolerates_down_to_min_exact(project) -> None:
    project.write_suite('[[gate]]\nname = "floor"\nkind = "golden"\nmode = "floor"\nmin_exact = 10\n' + GEN)
    project.bless("floor")
    assert _one(project, {"FAKE_FLIP": "3,6"}).status == "green"
    red = _one(project, {"FAKE_FLIP": "3,6,9"})
    assert red.status == "red"
    assert red.summary.startswith("9/12 exact (floor 10) — first divergence at position 3")


def test_teacher_forced_counts_near_tie_and_hard_flips(project) -> None:
    project.write_suite(
        '[[gate]]\nname = "tf"\nkind = "golden"\nmode = "teacher-forced"\nnear_tie_eps = 0.05\n'
        "max_near_tie_flips = 1\nmax_hard_flips = 0\n" + GEN
    )
    project.bless("tf")
    near = _one(project, {"FAKE_FLIP": "3"})  # the fake engine's margin at position 3 is 0.01
    assert near.status == "green"
    assert near.summary == "11/12 (1 near-tie, 0 hard) — first hard flip none; worst near-tie margin 0.01 at position 3"
    hard = _one(project, {"FAKE_FLIP": "3,6"})
    golden = project.golden("tf")["value"]["tokens"]
    assert hard.status == "red"
    assert hard.summary == (
        f"10/12 (1 near-tie, 1 hard) — first hard flip position 6: token {golden[6]} -> {(golden[6] + 1) % 97}, "
        "golden margin 0.5; worst near-tie margin 0.01 at position 3 [allowed: 1 near-tie, 0 hard]"
    )
    two_near = _one(project, {"FAKE_FLIP": "3,8"})
    assert two_near.status == "red" and two_near.summary.startswith("10/12 (2 near-tie, 0 hard)")


def test_teacher_forced_margins_are_compared_not_only_stored(project) -> None:
    """A scoring bug that moves every margin but no token turns a teacher-forced golden red (exact by
    default); a declared margin_tolerance lets a non-bit-exact tier move within it."""
    project.write_suite('[[gate]]\nname = "tf"\nkind = "golden"\nmode = "teacher-forced"\nnear_tie_eps = 0.05\n' + GEN)
    project.bless("tf")
    moved = _one(project, {"FAKE_MARGIN_SHIFT": "0.001"})
    assert moved.status == "red"
    assert "margins moved at 12 position(s), first 0: 0.5 -> 0.501" in moved.summary
    assert "(tolerance 0)" in moved.summary
    project.write_suite('[[gate]]\nname = "tf"\nkind = "golden"\nmode = "teacher-forced"\nnear_tie_eps = 0.05\n'
                        "margin_tolerance = 0.01\n" + GEN)
    assert _one(project, {"FAKE_MARGIN_SHIFT": "0.001"}).status == "green"
    assert _one(project, {"FAKE_MARGIN_SHIFT": "0.1"}).status == "red"


def test_anchor_digests_catch_a_drift_that_keeps_every_token(project) -> None:
    project.write_suite('[[gate]]\nname = "bench"\nkind = "anchor"\npositions = [2]\ndigests = ["logits"]\n' + GEN)
    project.bless("bench")
    assert set(project.golden("bench")["value"]["digests"]) == {"logits"}
    assert _one(project, {}).status == "green"
    drift = _one(project, {"FAKE_LOGITS_DRIFT": "1ulp"})
    assert drift.status == "red"
    assert drift.summary.startswith("logits digest ") and "(1/1 anchor tokens hold)" in drift.summary


def test_anchor_of_digests_alone_pins_a_probe_without_tokens(project) -> None:
    project.write_suite('[[gate]]\nname = "kernels"\nkind = "anchor"\ndigests = ["cases"]\n'
                        'probe = "fakeengine:cases"\n')
    project.bless("kernels")
    pin = project.golden("kernels")["value"]
    assert set(pin) == {"digests"}
    green = _one(project, {})
    assert green.status == "green"
    assert green.summary == f"cases {pin['digests']['cases'][:12]}… identical"
    red = _one(project, {"FAKE_FMA": "1"})
    assert red.status == "red"
    assert red.summary.startswith(f"cases digest {pin['digests']['cases'][:12]}… -> ")
    assert red.summary.endswith("(0/1 digests hold)")
    assert red.verdict.cases.failed_ids == ("digests.cases",)


def test_anchor_green_then_red_naming_the_moved_anchor(project) -> None:
    project.write_suite('[[gate]]\nname = "bench"\nkind = "anchor"\npositions = [2, 5, 11]\n' + GEN)
    project.bless("bench")
    pin = project.golden("bench")["value"]
    green = _one(project)
    assert green.status == "green"
    assert green.summary == f"anchor {pin['anchor']}, stream 12 tokens {pin['digest'][:12]}… identical; 3/3 anchor tokens hold"
    red = _one(project, {"FAKE_FLIP": "5"})
    assert red.status == "red"
    assert red.summary.startswith(f"anchor {pin['anchor']} -> ")
    assert f"first divergence at position 5: token {pin['tokens'][5]} -> {(pin['tokens'][5] + 1) % 97}" in red.summary
    assert red.summary.endswith(f"anchor token at position 5: {pin['anchors']['5']} -> {(pin['anchors']['5'] + 1) % 97} (2/3 anchor tokens hold)")


def test_band_tolerates_inside_and_goes_red_outside(project) -> None:
    project.write_suite('[[gate]]\nname = "spec"\nkind = "band"\nprobe = "fakeengine:speculative"\n'
                        'bands = { proposed = [50, 60], "counters.accepted" = [45, 60] }\n')
    inside = _one(project, {"FAKE_DRAFT_EXTRA": "1"})  # +1 stays inside the band: tolerant by design
    assert inside.status == "green"
    assert inside.summary == "2/2 in band: proposed 60 in [50, 60]; accepted 53 in [45, 60]"
    outside = _one(project, {"FAKE_DRAFT_EXTRA": "5"})
    assert outside.status == "red"
    assert outside.summary == "1/2 in band — proposed 64 outside [50, 60] (above hi by 4)"


def test_bitident_lists_failing_cases(project) -> None:
    project.write_suite(
        '[[gate]]\nname = "dispatch"\nkind = "bitident"\nprobe = "fakeengine:cases"\n'
        'configs = { dispatch = { args = { impl = "dispatch" } }, scalar = { args = { impl = "scalar" } } }\n'
    )
    green = _one(project)
    assert green.summary == "12/12 identical (dispatch vs scalar)"
    red = _one(project, {"FAKE_FMA": "1"})
    assert red.status == "red"
    assert red.summary.startswith("8/12 identical (dispatch vs scalar) — 4 differ, first case-0: ")
    assert red.verdict.cases.failed_ids == ("case-0", "case-3", "case-6", "case-9")


def test_bitident_between_two_env_configurations(project) -> None:
    project.write_suite(
        '[[gate]]\nname = "arms"\nkind = "bitident"\nprobe = "fakeengine:generate"\nfield = "tokens"\n'
        'configs = { default = {}, flipped = { env = { FAKE_FLIP = "4" } } }\n'
    )
    red = _one(project)
    assert red.status == "red"
    assert red.summary.startswith("11/12 identical (default vs flipped) — 1 differ, first pos-4: ")


def test_invariance_names_the_knob_value_that_differs(project) -> None:
    project.write_suite(
        '[[gate]]\nname = "inv"\nkind = "invariance"\n' + GEN
        + 'invariant_over = { FAKE_BUDGET = ["0", "1", "64"], FAKE_THREADS = ["1", "2"] }\n'
    )
    green = _one(project)
    assert green.summary == ("5/5 runs identical to baseline on tokens, margins, digests "
                             "(FAKE_BUDGET=0,1,64; FAKE_THREADS=1,2)")
    red = _one(project, {"FAKE_LEAK": "FAKE_THREADS"})
    assert red.status == "red"
    assert red.summary.startswith("4/5 runs identical to baseline — FAKE_THREADS=2 differs from baseline: "
                                  "tokens first differ at position 2")
    assert red.verdict.cases.failed_ids == ("FAKE_THREADS=2",)


def test_counters_per_budget_exact(project) -> None:
    project.write_suite('[[gate]]\nname = "cache"\nkind = "counters"\ncounters = ["misses", "evictions"]\n'
                        + GEN + 'over = { FAKE_BUDGET = ["0", "1"] }\n')
    project.bless("cache")
    assert project.golden("cache")["value"] == {
        "FAKE_BUDGET=0": {"misses": 24, "evictions": 1}, "FAKE_BUDGET=1": {"misses": 4, "evictions": 0},
    }
    assert _one(project).summary == ("4/4 counters exact (FAKE_BUDGET=0: misses 24, evictions 1; "
                                     "FAKE_BUDGET=1: misses 4, evictions 0)")
    red = _one(project, {"FAKE_EXTRA_MISS": "1"})
    assert red.status == "red"
    assert red.summary == "2/4 counters exact — FAKE_BUDGET=0/misses 24 -> 25 (+1); FAKE_BUDGET=1/misses 4 -> 5 (+1)"


def test_cmd_probe_is_a_first_class_probe(project) -> None:
    script = project.root / "probe.py"
    script.write_text('import json, os\nargs = json.loads(os.environ["VTGATE_PROBE_ARGS"])\n'
                      'print(json.dumps({"counters": {"n": int(os.environ.get("N", "3")) + args["add"]}}))\n')
    project.write_suite('[[gate]]\nname = "cmd"\nkind = "band"\nprobe = { cmd = ["python3", "probe.py"] }\n'
                        "args = { add = 0 }\nbands = { n = [0, 5] }\n", header="")
    assert _one(project).status == "green"
    assert _one(project, {"N": "9"}).summary == "0/1 in band — n 9 outside [0, 5] (above hi by 4)"


def test_counters_named_in_the_suite_must_match_the_golden(project) -> None:
    path = project.write_suite('[[gate]]\nname = "cache"\nkind = "counters"\ncounters = ["misses", "evictions"]\n' + GEN)
    project.bless("cache")
    path.write_text(path.read_text().replace('counters = ["misses", "evictions"]', 'counters = ["misses"]'))
    gate = _one(project)
    assert gate.status == "error" and gate.error_kind == "golden"
    assert gate.error == ("gate 'cache': the suite pins counters ['misses'] but the golden holds ['evictions', "
                          "'misses']; re-bless: vtgate bless cache --reason ...")


def test_invariance_over_probe_args_labels_values_as_toml_writes_them(project) -> None:
    project.write_suite('[[gate]]\nname = "inv"\nkind = "invariance"\n' + GEN
                        + 'invariant_over_args = { tokens = [12, 13] }\ncompare = ["tokens"]\n')
    gate = _one(project)
    assert gate.status == "red"  # 13 tokens is not the 12-token baseline
    assert gate.summary == "1/2 runs identical to baseline — tokens=13 differs from baseline: tokens length 12 -> 13"


def test_a_red_stream_carries_both_token_streams_and_margins_a_green_one_stays_small(project) -> None:
    """What vtgate report shows as the first divergent step (docs/report.md) is in the verdict itself."""
    project.write_suite('[[gate]]\nname = "strict"\nkind = "golden"\n' + GEN
                        + '\n[[gate]]\nname = "bench"\nkind = "anchor"\npositions = [2, 5, 11]\n' + GEN)
    project.bless("strict")
    project.bless("bench")
    green = _one(project, name="bench")
    assert set(green.verdict.measured) == {"digest", "anchor", "length", "anchors"}
    assert "margins" not in _one(project, name="strict").verdict.measured
    for name in ("strict", "bench"):
        red = _one(project, {"FAKE_FLIP": "5"}, name=name)
        golden = project.golden(name)["value"]
        assert red.verdict.pinned["tokens"] == golden["tokens"]
        assert red.verdict.measured["tokens"][5] == (golden["tokens"][5] + 1) % 97
        assert len(red.verdict.measured["margins"]) == 12
        if "margins" in golden:
            assert red.verdict.pinned["margins"] == golden["margins"]


def test_snapshot_green_then_red_naming_each_changed_call(project) -> None:
    project.write_suite('[[gate]]\nname = "snap"\nkind = "snapshot"\nprobe = "fakeengine:cases"\nshow = 2\n')
    project.bless("snap")
    green = _one(project)
    assert (green.status, green.summary) == ("green", "12/12 calls as pinned")
    red = _one(project, {"FAKE_FMA": "1"})  # cases 0, 3, 6, 9 change
    assert red.status == "red"
    assert red.verdict.cases.failed_ids == ("case-0", "case-3", "case-6", "case-9")
    pinned = project.golden("snap")["value"]["cases"]
    assert red.summary.startswith(f"8/12 calls as pinned (4 changed) — case-0: {pinned['case-0']} -> ")
    assert red.summary.endswith("; and 2 more")  # show = 2


def test_snapshot_is_red_when_the_run_draws_other_calls_than_the_golden(project) -> None:
    project.write_suite('[[gate]]\nname = "snap"\nkind = "snapshot"\nprobe = "fakeengine:cases"\nargs = { n = 12 }\n')
    project.bless("snap")
    project.write_suite('[[gate]]\nname = "snap"\nkind = "snapshot"\nprobe = "fakeengine:cases"\nargs = { n = 10 }\n')
    fewer = _one(project)
    assert fewer.status == "red" and "(0 changed, 2 not run)" in fewer.summary
    assert fewer.verdict.cases.failed_ids == ("case-10", "case-11")
    project.write_suite('[[gate]]\nname = "snap"\nkind = "snapshot"\nprobe = "fakeengine:cases"\nargs = { n = 13 }\n')
    more = _one(project)
    assert more.status == "red" and "1 not pinned" in more.summary and "case-12: (not pinned) -> " in more.summary


def test_snapshot_bless_diff_counts_the_changed_calls(project) -> None:
    project.write_suite('[[gate]]\nname = "snap"\nkind = "snapshot"\nprobe = "fakeengine:cases"\n')
    project.bless("snap")
    done = project.vtgate("bless", "snap", "--reason", "fma on", env={"FAKE_FMA": "1"})
    assert done.returncode == 0, done.stderr
    assert "4 of 12 calls changed; first: case-0: " in done.stdout + done.stderr


def test_snapshot_show_must_be_a_positive_whole_number(project) -> None:
    project.write_suite('[[gate]]\nname = "snap"\nkind = "snapshot"\nprobe = "fakeengine:cases"\nshow = 0\n')
    done = project.vtgate("check")
    assert done.returncode == 2
    assert "show must be a whole number >= 1" in done.stderr + done.stdout
