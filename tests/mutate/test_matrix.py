"""The kill matrix of an engine-like suite: every declared expectation met, the built-in controls
kill every pin, the engine's opt-in arms (read from its own registry probe) each turn something red,
probe runs are shared across mutations, and the JSON has the shape of docs/json-formats.md."""

from __future__ import annotations


def test_engine_like_suite_passes_with_every_expectation_met(matrix) -> None:
    done, report = matrix
    assert done.returncode == 0, done.stderr
    assert report["ok"] is True
    assert report["vacuous"] == []
    assert all(m["met"] for m in report["mutations"])


def test_json_has_the_documented_shape(matrix) -> None:
    _, report = matrix
    assert report["schema"] == 1
    assert set(report) >= {"schema", "ok", "mutations", "kills", "vacuous", "seconds"}
    assert isinstance(report["seconds"], float)
    for mutation in report["mutations"]:
        assert set(mutation) >= {"name", "kind", "expected", "actual", "met"}
        assert mutation["kind"] in ("env", "patch", "pin", "auto")
        assert set(mutation["expected"].values()) <= {"red", "green"}
        assert set(mutation["actual"].values()) <= {"red", "green", "error"}
    assert set(report["kills"]) == {"strict-hi", "anchor-hi", "dispatch-vs-scalar", "draft-band",
                                    "budget-counters", "threads-invariance"}


def test_env_mutation_kills_exactly_the_gates_its_arm_moves(matrix) -> None:
    _, report = matrix
    fma = next(m for m in report["mutations"] if m["name"] == "fma-default-on")
    assert fma["kind"] == "env"
    assert fma["actual"] == {"strict-hi": "red", "anchor-hi": "red", "dispatch-vs-scalar": "red",
                             "draft-band": "green", "budget-counters": "green", "threads-invariance": "green"}
    assert sorted(fma["kills"]) == ["anchor-hi", "dispatch-vs-scalar", "strict-hi"]
    assert "fma-default-on" in report["kills"]["strict-hi"]
    assert "fma-default-on" not in report["kills"]["draft-band"]


def test_declared_green_expectation_survives(matrix) -> None:
    _, report = matrix
    band = next(m for m in report["mutations"] if m["name"] == "band-plus-one")
    assert band == {**band, "kind": "pin", "expected": {"draft-band": "green"},
                    "actual": {"draft-band": "green"}, "met": True}
    assert band["description"] == "band counters.accepted [5, 10] -> [6, 11]"


def test_every_opt_in_arm_of_the_registry_becomes_an_env_mutation(matrix) -> None:
    _, report = matrix
    arms = {m["name"]: m for m in report["mutations"] if m["origin"] == "arm"}
    assert set(arms) == {"arm-default:attention.fma", "arm-default:gemv.fast"}
    assert arms["arm-default:gemv.fast"]["env"] == {"MUT_FAST": "1"}
    assert arms["arm-default:gemv.fast"]["expected"] == {"*": "red"}
    assert arms["arm-default:gemv.fast"]["kills"] == ["draft-band"]
    assert sorted(arms["arm-default:attention.fma"]["kills"]) == ["anchor-hi", "dispatch-vs-scalar", "strict-hi"]


def test_probe_runs_are_shared_across_mutations(blessed) -> None:
    _, report = blessed.mutate_json()
    runs = report["probe_runs"]
    # the arm mutation MUT_FMA=1 is the same env as the declared fma-default-on: all of it is shared
    assert runs["requested"] == runs["run"] + runs["shared"]
    _, alone = blessed.mutate_json("--no-auto")
    fma_only = alone["probe_runs"]
    assert runs["run"] - fma_only["run"] > 0          # the fast arm needed runs of its own
    assert runs["shared"] - fma_only["shared"] >= fma_only["requested"] // 2  # ... but not the FMA arm


def test_no_auto_skips_controls_and_arms(blessed) -> None:
    _, report = blessed.mutate_json("--no-auto")
    assert {m["name"] for m in report["mutations"]} == {"fma-default-on", "band-plus-one"}


def test_every_gate_has_its_own_controls_and_they_kill(matrix) -> None:
    _, report = matrix
    controls = [m for m in report["mutations"] if m["origin"] == "control"]
    by_gate: dict[str, list[dict]] = {}
    for control in controls:
        (gate,) = control["actual"]
        by_gate.setdefault(gate, []).append(control)
    assert set(by_gate) == set(report["kills"])
    for gate, own in by_gate.items():
        reds = [c for c in own if c["expected"][gate] == "red"]
        assert reds, gate
        assert all(c["actual"][gate] == "red" for c in reds), gate
    band = {c["name"]: c["actual"]["draft-band"] for c in by_gate["draft-band"]}
    assert band == {"draft-band:counters.accepted:lo": "green", "draft-band:counters.accepted:below-lo": "red",
                    "draft-band:counters.accepted:hi": "green", "draft-band:counters.accepted:above-hi": "red"}


def test_terminal_shows_the_matrix_and_the_footer(blessed) -> None:
    done = blessed.vtgate("mutate", "-q")
    assert done.returncode == 0
    assert "kill matrix" in done.stderr
    assert "1 fma-default-on (env) met: kills 3 — env MUT_FMA=1" in done.stderr
    assert "ok: 6 gates," in done.stderr and "shared)" in done.stderr
    rows = {line.split()[0]: line.split()[1:] for line in done.stderr.splitlines() if line.strip()}
    # columns: 1 fma-default-on, 2 arm attention.fma, 3 arm gemv.fast, 4 band-plus-one (pin: one gate)
    assert rows["gate"] == ["1", "2", "3", "4", "own", "killed", "by"]
    assert rows["strict-hi"] == ["K", "K", "·", "2/2", "4"]
    assert rows["draft-band"] == ["·", "·", "K", "·", "4/4", "3"]


def test_terminal_marks_an_unmet_expectation_in_its_cell(blessed, texts) -> None:
    blessed.write_suite(texts.gates + '''
[[mutation]]
name = "wrongly-expected"
kind = "env"
env = { MUT_FMA = "1" }
expect = { strict-hi = "green", draft-band = "red" }
''')
    done = blessed.vtgate("mutate", "-q", "--no-auto")
    assert done.returncode == 1
    rows = {line.split()[0]: line.split()[1:] for line in done.stderr.splitlines() if line.strip()}
    assert rows["strict-hi"] == ["K!", "-", "1"]
    # --no-auto skipped the controls that could kill it: a partial run calls no gate vacuous
    assert rows["draft-band"] == ["·!", "-", "0"]


def test_gate_selection_limits_the_matrix(blessed) -> None:
    _, report = blessed.mutate_json("--gate", "draft-band")
    assert set(report["kills"]) == {"draft-band"}
    fma = next(m for m in report["mutations"] if m["name"] == "fma-default-on")
    assert fma["actual"] == {"draft-band": "green"} and fma["met"] is True


def test_nothing_selected_exits_5(blessed) -> None:
    done = blessed.vtgate("mutate", "-k", "no-such-gate")
    assert done.returncode == 5
