"""vtgate mutate --code on the mutfake engine (a real git project, real subprocess probes): every
generated mutant is judged in a patched copy, cheapest gate first, stopping at the first red; the
score counts killed over non-equivalent; a rerun evaluates nothing; the oracle is in the cache key; a
ledger's entries are judged all the same, left out of the trusted score, and need reasons; bad scopes are exit 2."""

from __future__ import annotations

import json
import subprocess

import pytest
from vtgate.mutate.codemutants import generate

pytestmark = pytest.mark.slow  # every test judges generated mutants with real probe runs: .ci/run runs it with -m slow

CRASH_GUARD = '\nassert len(ARMS) <= 4, "the arm registry has four arms"\n'


def code_json(project, *args: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    done = project.vtgate("mutate", "--code", "--json", "-", "-q", "-j", "2", *args)
    assert done.stdout.strip(), done.stderr
    return done, json.loads(done.stdout)


def test_every_mutant_is_judged_and_a_kill_stops_at_the_first_red_gate(blessed) -> None:
    source = blessed.root / "src" / "mutfake" / "__init__.py"
    source.write_text(source.read_text() + CRASH_GUARD)
    blessed.commit("a registry guard that a boundary mutant breaks at import")
    done, report = code_json(blessed)
    assert done.returncode in (0, 1), done.stderr
    statuses = {m["status"] for m in report["mutants"]}
    assert statuses <= {"killed", "killed-by-crash", "killed-by-timeout", "survived", "possibly-equivalent"}
    assert report["sampled"] == report["generated"] == len(report["mutants"]) > 10
    # Mutants start longest first, but the report keeps the order they were generated in.
    assert [m["id"] for m in report["mutants"]] == [m.ident for m in generate(blessed.root, ["src/mutfake"])]
    for mutant in report["mutants"]:
        if mutant["status"] == "killed":
            assert mutant["gates_run"][-1] == mutant["killed_by"]  # nothing ran after the killing gate
        assert mutant["diff"].startswith("--- a/src/mutfake/")
    crash = [m for m in report["mutants"] if m["status"] == "killed-by-crash"]
    assert [m["description"] for m in crash] == ["len(ARMS) <= 4 -> len(ARMS) < 4"]  # the import-time guard, listed apart
    assert report["killed"] == sum(1 for m in report["mutants"] if m["status"].startswith("killed"))
    assert report["score"] == round(report["killed"] / report["non_equivalent"], 4)
    assert subprocess.run(["git", "status", "--porcelain"], cwd=blessed.root, capture_output=True,
                          text=True).stdout == ""  # the user's tree is untouched


def test_a_rerun_evaluates_nothing_and_a_changed_oracle_evaluates_again(blessed) -> None:
    _, first = code_json(blessed, "--operator", "index-shift")
    assert first["evaluated"] == len(first["mutants"]) > 0
    _, again = code_json(blessed, "--operator", "index-shift")
    assert again["evaluated"] == 0
    assert [m["status"] for m in again["mutants"]] == [m["status"] for m in first["mutants"]]
    assert all(m["cached"] for m in again["mutants"])
    suite = blessed.suite_path
    suite.write_text(suite.read_text() + "\n# the oracle changed\n")
    _, changed = code_json(blessed, "--operator", "index-shift")
    assert changed["evaluated"] == len(changed["mutants"])


def test_budget_samples_reproducibly(blessed) -> None:
    _, a = code_json(blessed, "--budget", "3", "--seed", "5", "--no-cache")
    _, b = code_json(blessed, "--budget", "3", "--seed", "5", "--no-cache")
    assert [m["id"] for m in a["mutants"]] == [m["id"] for m in b["mutants"]]
    assert a["sampled"] == 3 and a["generated"] > 3 and a["budget"] == 3


def test_ledger_entries_are_left_out_of_the_trusted_score_and_need_a_reason(blessed) -> None:
    done, report = code_json(blessed)
    survivors = [m for m in report["mutants"] if m["status"] in ("survived", "possibly-equivalent")]
    assert survivors, "the mutfake suite leaves at least one mutant alive"
    assert done.returncode == 1 and report["min_score"] == 1.0 and report["score"] < 1.0
    floor = report["score"]
    done, again = code_json(blessed, "--min-score", str(floor))  # CI's floor: the score may not drop
    assert done.returncode == 0 and again["ok"] is True and again["evaluated"] == 0
    target = survivors[0]
    ledger = blessed.root / "goldens" / "mutations" / "equivalent.toml"
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_text(f'[[equivalent]]\ndigest = "{target["ledger_key"]}"\nid = "{target["id"]}"\n'
                      'reason = "the suite never reads this value"\n'
                      '[[equivalent]]\ndigest = "0123456789abcdef"\nid = "src/mutfake/gone.py:1:1:rounding:0"\n'
                      'reason = "code since deleted"\n')
    done, after = code_json(blessed)
    entry = next(m for m in after["mutants"] if m["digest"] == target["digest"])
    # judged all the same (the ledger is a claim to check): no gate kills it, the differential check decides
    assert entry["status"] in ("equivalent", "ledger-refuted", "ledger-unverified"), entry
    # by the same gates: on the shadow copy (the default) or on its own copy
    assert entry["ledger"]["reason"] == "the suite never reads this value"
    assert sorted(entry["gates_run"]) == sorted(target["gates_run"]), (entry["judged_by"], entry["shadow"])
    assert after["non_equivalent"] == report["non_equivalent"] - 1  # trusted: left out whatever the check found
    verified = 1 if entry["status"] == "equivalent" else 0
    assert after["non_equivalent_verified"] == report["non_equivalent_verified"] - verified
    assert after["ledger_unmatched"] == [{"digest": "0123456789abcdef", "id": "src/mutfake/gone.py:1:1:rounding:0"}]
    ledger.write_text(f'[[equivalent]]\ndigest = "{target["digest"]}"\n')
    done = blessed.vtgate("mutate", "--code")
    assert done.returncode == 2
    assert "has no reason" in done.stderr


def test_a_scope_that_matches_no_code_is_exit_2(blessed) -> None:
    blessed.suite_path.write_text(blessed.suite_path.read_text() + '\n[mutate.code]\npaths = ["nowhere"]\n')
    done = blessed.vtgate("mutate", "--code")
    assert done.returncode == 2
    assert "no Python file under nowhere" in done.stderr
    done = blessed.vtgate("mutate", "--budget", "3")
    assert done.returncode == 2
    assert "go with --code" in done.stderr
    done = blessed.vtgate("mutate", "--code", "--min-score", "0")
    assert done.returncode == 2  # the empty scope still wins


def test_a_copy_that_leaves_out_what_the_probes_import_is_exit_2(blessed) -> None:
    suite = blessed.suite_path.read_text()
    blessed.suite_path.write_text(suite + '\n[mutate.code]\ncopy = ["docs"]\n')
    done = blessed.vtgate("mutate", "--code")
    assert done.returncode == 2
    assert "copy = ['docs'] leaves out paths 'src/mutfake'" in done.stderr and "add 'src/mutfake'" in done.stderr
    blessed.suite_path.write_text(suite + '\n[mutate.code]\ncopy = ["src/mutfake"]\n')
    done = blessed.vtgate("mutate", "--code")
    assert done.returncode == 2 and "leaves out [suite] pythonpath 'src'" in done.stderr


def test_only_gates_whose_probes_reach_the_mutated_line_run(blessed) -> None:
    _, report = code_json(blessed, "--operator", "index-shift")
    in_cases = [m for m in report["mutants"] if m["function"] == "cases"]
    assert in_cases, "range(n) in cases() has an index-shift mutant"
    for mutant in in_cases:  # only the bit-identity gate calls mutfake:cases
        assert mutant["gates_run"] == ["dispatch-vs-scalar"], mutant
    in_stream = [m for m in report["mutants"] if m["function"] == "_stream"]
    assert in_stream and all(len(m["gates_run"]) >= 1 for m in in_stream)
    assert not any("dispatch-vs-scalar" in m["gates_run"] or "draft-band" in m["gates_run"] for m in in_stream
                   if m["status"] == "survived")


def test_the_json_report_matches_its_schema(blessed) -> None:
    from pathlib import Path

    import jsonschema
    schema_path = Path(__file__).resolve().parents[2] / "docs" / "schemas" / "mutate-code.schema.json"
    schema = json.loads(schema_path.read_text())
    _, report = code_json(blessed, "--operator", "index-shift")
    jsonschema.validate(report, schema)
    renamed = dict(report, scores=report.pop("score"))
    try:
        jsonschema.validate(renamed, schema)
    except jsonschema.ValidationError:
        pass
    else:
        raise AssertionError("a renamed field must not validate")


def test_equivalence_evidence_turns_a_possibly_equivalent_mutant_into_a_survivor_or_records_its_inputs(
        blessed) -> None:
    _, plain = code_json(blessed)
    possibly = {m["digest"] for m in plain["mutants"] if m["status"] == "possibly-equivalent"}
    assert possibly, "the mutfake suite leaves a mutant whose observations did not change"
    _, report = code_json(blessed, "--equivalence", "24")
    checked = [m for m in report["mutants"] if m["digest"] in possibly]
    assert len(checked) == len(possibly)
    for mutant in checked:  # each one now carries its evidence: a difference with its input, or none over N
        if mutant["status"] == "survived":
            assert "differs from the original on input" in mutant["detail"] or "fails to replay" in mutant["detail"]
        else:
            assert mutant["status"] == "possibly-equivalent"
            assert "no difference over" in mutant["detail"] or "no differential evidence" in mutant["detail"]
    assert report["score"] == plain["score"]  # a survivor either way: the score does not move
    done = blessed.vtgate("mutate", "--equivalence", "5")
    assert done.returncode == 2 and "go with --code" in done.stderr


def test_a_gate_red_at_baseline_is_not_used_to_kill_and_the_report_says_why(blessed) -> None:
    suite = blessed.suite_path
    text = suite.read_text()
    assert 'bands = { "counters.accepted" = [5, 10] }' in text
    suite.write_text(text.replace('bands = { "counters.accepted" = [5, 10] }', 'bands = { "counters.accepted" = [90, 99] }'))
    blessed.commit("a band no run of the engine meets")
    done, report = code_json(blessed, "--operator", "index-shift")
    assert report["baseline_red"] == ["draft-band"]
    assert report["baseline_why"]["draft-band"].startswith("red: ")
    assert "accepted 7 outside [90, 99]" in report["baseline_why"]["draft-band"]
    assert all("draft-band" not in m["gates_run"] for m in report["mutants"])
    human = blessed.vtgate("mutate", "--code", "--operator", "index-shift", "-j", "2")
    assert "not used to kill (not green at baseline): draft-band" in human.stdout + human.stderr
    assert "draft-band: red: " in human.stdout + human.stderr
