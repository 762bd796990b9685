"""Expectations that do not hold fail the run (exit 1) and say why; a pin that cannot fail is
reported vacuous, whether it survives its own negative control or no mutation kills it."""

from __future__ import annotations

VACUOUS_BAND = """\
[[gate]]
name = "anything-goes"
kind = "band"
probe = "mutfake:speculative"
bands = { "counters.accepted" = [-inf, inf] }
"""

VACUOUS_FLOOR = """\
[[gate]]
name = "floor-zero"
kind = "golden"
mode = "floor"
min_exact = 0
probe = "mutfake:generate"
args = { prompt = "hi", tokens = 12 }

[[mutation]]
name = "fma-default-on"
kind = "env"
env = { MUT_FMA = "1" }
expect = { "*" = "red" }
"""


def test_band_that_admits_every_value_is_vacuous(project) -> None:
    project.write_suite(VACUOUS_BAND)
    done, report = project.mutate_json()
    assert done.returncode == 1
    assert report["ok"] is False
    assert report["vacuous"] == ["anything-goes"]
    reasons = report["vacuous_reasons"]["anything-goes"]
    assert ("survives its own negative control anything-goes:counters.accepted:below-lo "
            "(measured counters.accepted 7 -> -inf (just outside the lo edge))") in reasons
    assert reasons[-1] == "no mutation kills it"
    assert "vacuous pin anything-goes" in project.vtgate("mutate", "-q").stderr


def test_golden_whose_pin_equals_whatever_the_probe_returns_is_vacuous(project) -> None:
    """A floor of 0 exact tokens: the pin holds for any stream, so even a real arm change that flips a
    token (the declared env mutation) does not kill it."""
    project.write_suite(VACUOUS_FLOOR)
    project.bless("floor-zero")
    done, report = project.mutate_json()
    assert done.returncode == 1
    assert report["vacuous"] == ["floor-zero"]
    assert report["vacuous_reasons"]["floor-zero"] == ["no mutation kills it"]
    fma = next(m for m in report["mutations"] if m["name"] == "fma-default-on")
    assert fma["actual"] == {"floor-zero": "green"}
    assert fma["met"] is False
    assert fma["unmet"] == ["expected at least one gate red; every gate survived"]
    assert report["kill_nothing"] == ["fma-default-on"]


def test_declared_red_that_stays_green_fails_the_run(blessed, texts) -> None:
    blessed.write_suite(texts.gates + "\n" + texts.mutations + """
[[mutation]]
name = "knob-nobody-reads"
kind = "env"
env = { MUT_UNUSED = "1" }
expect = { strict-hi = "red" }
""")
    done, report = blessed.mutate_json()
    assert done.returncode == 1
    unmet = [m for m in report["mutations"] if not m["met"]]
    assert [m["name"] for m in unmet] == ["knob-nobody-reads"]
    assert unmet[0]["expected"] == {"strict-hi": "red"}
    assert unmet[0]["actual"]["strict-hi"] == "green"
    assert unmet[0]["unmet"] == ["strict-hi: expected red, got green (12/12 exact)"]
    assert report["vacuous"] == []
    text = blessed.vtgate("mutate", "-q", "--no-auto").stderr
    assert "knob-nobody-reads: strict-hi: expected red, got green (12/12 exact)" in text
    assert "FAILED" in text


def test_declared_green_that_goes_red_fails_the_run(blessed, texts) -> None:
    blessed.write_suite(texts.gates + """
[[mutation]]
name = "fma-claimed-harmless"
kind = "env"
env = { MUT_FMA = "1" }
expect = { strict-hi = "green" }
""")
    done, report = blessed.mutate_json("--no-auto")
    assert done.returncode == 1
    (mutation,) = report["mutations"]
    assert mutation["met"] is False
    assert mutation["unmet"][0].startswith("strict-hi: expected green, got red (11/12 exact — first divergence at position 3")


def test_pin_mutations_swap_a_token_and_set_the_anchor(blessed, texts) -> None:
    blessed.write_suite(texts.gates + """
[[mutation]]
name = "golden-token-swapped"
kind = "pin"
pin = { gate = "strict-hi", op = "swap-token", position = 7 }
expect = { strict-hi = "red" }

[[mutation]]
name = "anchor-old-value"
kind = "pin"
pin = { gate = "anchor-hi", op = "set", values = { "anchor" = 11622 } }
expect = { anchor-hi = "red" }

[[mutation]]
name = "draft-plus-one"
kind = "pin"
pin = { gate = "draft-band", op = "shift-measured", field = "counters.accepted", by = 1 }
expect = { draft-band = "green" }
""")
    done, report = blessed.mutate_json()
    assert done.returncode == 0, done.stderr
    by_name = {m["name"]: m for m in report["mutations"]}
    assert by_name["golden-token-swapped"]["actual"] == {"strict-hi": "red"}
    assert by_name["golden-token-swapped"]["summaries"]["strict-hi"].startswith("11/12 exact — first divergence at position 7")
    assert by_name["anchor-old-value"]["actual"] == {"anchor-hi": "red"}
    assert by_name["anchor-old-value"]["summaries"]["anchor-hi"].startswith("anchor 11622 -> ")
    assert by_name["draft-plus-one"]["description"] == "measured counters.accepted 7 -> 8"
    assert by_name["draft-plus-one"]["actual"] == {"draft-band": "green"}


def test_expect_observed_reports_and_checks_what_a_mutation_measures(blessed, texts) -> None:
    import json

    anchor = json.loads((blessed.root / "goldens/default/anchor-hi.json").read_text())["value"]["anchor"]
    blessed.write_suite(texts.gates + f"""
[[mutation]]
name = "old-default"
kind = "env"
env = {{ MUT_FMA = "1" }}
expect = {{ anchor-hi = "red" }}
expect_observed = {{ anchor-hi = {{ "metrics.anchor" = {anchor} }} }}
""")
    done, report = blessed.mutate_json("--no-auto")
    assert done.returncode == 1
    (mutation,) = report["mutations"]
    measured = mutation["observed"]["anchor-hi"]["metrics.anchor"]
    assert measured != anchor
    assert mutation["unmet"] == [f"anchor-hi: metrics.anchor measured {measured}, expected {anchor}"]


def test_baseline_not_green_refuses_to_build_the_matrix(blessed) -> None:
    done, report = blessed.mutate_json(env={"MUT_FMA": "1"})
    assert done.returncode == 1
    assert report["mutations"] == []
    assert report["problem"].startswith("the baseline is not green, so kills cannot be told from failures: ")
    assert "strict-hi red" in report["problem"]


def test_expect_observed_reads_list_positions(blessed, texts) -> None:
    import json

    tokens = json.loads((blessed.root / "goldens/default/anchor-hi.json").read_text())["value"]["tokens"]
    blessed.write_suite(texts.gates + f"""
[[mutation]]
name = "fast-gemv"
kind = "env"
env = {{ MUT_FAST = "1" }}
expect = {{ draft-band = "red", anchor-hi = "green" }}
expect_observed = {{ anchor-hi = {{ "tokens.3" = {tokens[3]} }} }}

[[mutation]]
name = "fast-gemv-wrong-token"
kind = "env"
env = {{ MUT_FAST = "1" }}
expect = {{ draft-band = "red" }}
expect_observed = {{ anchor-hi = {{ "tokens.3" = {tokens[3] + 1}, "tokens.99" = 1 }} }}
""")
    done, report = blessed.mutate_json("--no-auto")
    assert done.returncode == 1
    right, wrong = report["mutations"][:2]
    assert right["met"] is True and right["observed"] == {"anchor-hi": {"tokens.3": tokens[3]}}
    assert wrong["unmet"] == [f"anchor-hi: tokens.3 measured {tokens[3]}, expected {tokens[3] + 1}",
                              "anchor-hi: tokens.99 measured None, expected 1"]
    assert report["probe_runs"]["shared"] > 0  # the two mutations have the same env: one set of runs


def test_a_gate_selection_cannot_fail_at_least_one_red(blessed) -> None:
    """With --gate, an arm mutation may kill only gates outside the selection: "at least one gate red"
    is not judged (and the arm is listed as killing nothing here), declared gates outside it are skipped."""
    done, report = blessed.mutate_json("--gate", "draft-band")
    assert done.returncode == 0, done.stderr
    fma = next(m for m in report["mutations"] if m["name"] == "arm-default:attention.fma")
    assert fma["met"] is True and fma["kills"] == []
    assert "arm-default:attention.fma" in report["kill_nothing"]
    declared = next(m for m in report["mutations"] if m["name"] == "fma-default-on")
    assert declared["actual"] == {"draft-band": "green"} and declared["met"] is True
