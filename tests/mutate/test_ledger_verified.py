"""The equivalents ledger is a claim the machine checks on every ``vtgate mutate --code`` run, never a
reason to skip a mutant: on the mutfake engine (a real git project, real subprocess probes) with three
planted entries, one that a gate kills is reported refuted and counts as killed; one whose function the
differential check tells apart from the original becomes a survivor (``ledger-refuted``) with its
witness input; one with no difference is verified and stays out of the verified score. The verdicts are
cached, and a changed dependency version re-judges them."""

from __future__ import annotations

import json
import platform
import subprocess

import pytest
from vtgate.mutate.codemutants import generate

pytestmark = pytest.mark.slow  # judges generated mutants with real probe runs: .ci/run runs it with -m slow

# Planted in the project's copy of mutfake: a function every generate() probe calls at 0.8 (12 tokens /
# 15), where it is the identity, and whose result no probe reports. Its 0.5 nudged differs from the
# original on any input above 1 (which the differential check's random variants reach); its boundary
# x > 1.0 -> x >= 1.0 differs on 1.0 alone, which no input is.
PLANTED = '''

def _half_above_one(x: float) -> float:
    return x * 0.5 if x > 1.0 else x


_generate = generate


def generate(prompt: str = "hi", tokens: int = 12) -> dict:
    _half_above_one(tokens / 15)
    return _generate(prompt, tokens)
'''

DEP_METADATA = "Metadata-Version: 2.1\nName: mutfake-dep\nVersion: {version}\n"


def code_json(project, *args: str, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], dict]:
    done = project.vtgate("mutate", "--code", "--json", "-", "-q", "-j", "2", "-g", "strict-hi", *args, env=env)
    assert done.stdout.strip(), done.stderr
    return done, json.loads(done.stdout)


def _planted(project) -> dict[str, object]:
    source = project.root / "src" / "mutfake" / "__init__.py"
    source.write_text(source.read_text() + PLANTED)
    dep = project.root / "src" / "mutfake_dep-1.0.dist-info"
    dep.mkdir()
    (dep / "METADATA").write_text(DEP_METADATA.format(version="1.0"))
    project.suite_path.write_text(project.suite_path.read_text()
                                  + '\n[mutate.code]\ndependencies = ["mutfake-dep"]\n')
    project.commit("a planted function for the ledger, and a dependency whose version the verdicts depend on")
    mutants = {(m.function, m.description): m for m in generate(project.root, ["src/mutfake"])}
    killed = mutants[("_stream", "tokens -> tokens - 1")]  # one token fewer: strict-hi goes red
    nudged = next(m for (function, _), m in mutants.items()
                  if function == "_half_above_one" and m.intent == "0.5 -> 0.5005 (relative 0.001)")
    boundary = mutants[("_half_above_one", "x > 1.0 -> x >= 1.0")]
    ledger = project.root / "goldens" / "mutations" / "equivalent.toml"
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_text("".join(
        f'[[equivalent]]\ndigest = "{m.ledger_key}"\nid = "{m.ident}"\nreason = "{why}"\n{extra}\n'
        for m, why, extra in (
            (killed, "claimed equivalent, wrongly: the stream loses its last token", ""),
            (nudged, "claimed equivalent: the probes only call it at 0.8", ""),
            (boundary, "x is never exactly 1.0 where the engine calls it",
             f'confirmed_under = {{ python = "{platform.python_version()}", mutfake-dep = "1.0" }}'))))
    project.commit("a ledger of three claims")
    return {"killed": killed, "nudged": nudged, "boundary": boundary, "dep": dep}


def test_ledger_entries_are_judged_refuted_by_a_gate_or_a_difference_or_verified(blessed) -> None:
    planted = _planted(blessed)
    operators = ("--operator", "index-shift", "--operator", "const-nudge", "--operator", "compare-boundary")
    done, report = code_json(blessed, *operators)
    by_key = {m["ledger_key"]: m for m in report["mutants"]}

    killed = by_key[planted["killed"].ledger_key]  # type: ignore[attr-defined]
    assert killed["status"] == "killed" and killed["killed_by"] == "strict-hi"
    assert killed["ledger"]["verdict"] == "refuted" and killed["ledger"]["refuted_by"] == "strict-hi"

    nudged = by_key[planted["nudged"].ledger_key]  # type: ignore[attr-defined]
    assert nudged["status"] == "ledger-refuted", nudged
    assert nudged["ledger"]["verdict"] == "refuted" and nudged["ledger"]["refuted_by"] == "the differential check"
    assert "differs from the original on input" in nudged["detail"]
    assert "random variant" in nudged["ledger"]["evidence"] and "_half_above_one" in nudged["ledger"]["evidence"]

    boundary = by_key[planted["boundary"].ledger_key]  # type: ignore[attr-defined]
    assert boundary["status"] == "equivalent", boundary
    assert boundary["ledger"]["verdict"] == "verified" and boundary["ledger"]["refuted_by"] is None
    assert "no difference over" in boundary["ledger"]["evidence"]
    assert boundary["ledger"]["versions_note"] is None  # confirmed under mutfake-dep 1.0, this run's

    counts = report["ledger_check"]
    assert (counts["entries"], counts["verified"], counts["refuted_by_gate"], counts["refuted_by_difference"]) == \
        (3, 1, 1, 1)
    assert counts["inputs"] == 48 and counts["seed"] == 0 and counts["evaluated"] == 2
    assert report["versions"]["mutfake-dep"] == "1.0" and report["versions"]["python"]
    # trusted: the refuted entry is left out; verified: it is a survivor; the verified entry is out of both
    n = len(report["mutants"])
    assert report["non_equivalent"] == n - 2 and report["non_equivalent_verified"] == n - 1
    assert report["score"] == round(report["killed"] / (n - 2), 4)
    assert report["score_verified"] == round(report["killed"] / (n - 1), 4) < report["score"]
    done = blessed.vtgate("mutate", "--code", "-q", "-j", "2", "-g", "strict-hi", *operators,
                          "--min-score", str(report["score"]))
    assert done.returncode == 1, done.stderr  # --min-score gates on the verified score
    text = done.stderr + done.stdout
    assert "ledger-refuted" in text and planted["nudged"].ident in text  # type: ignore[attr-defined]
    assert "ledger entries refuted by a gate: 1" in text and planted["killed"].ident in text  # type: ignore[attr-defined]
    assert "with the ledger verified" in text and "with the ledger trusted" in text


def test_a_cached_ledger_verdict_is_not_reused_when_a_dependency_version_changes(blessed) -> None:
    planted = _planted(blessed)
    operators = ("--operator", "compare-boundary")
    _, first = code_json(blessed, *operators)
    assert first["evaluated"] == len(first["mutants"]) and first["ledger_check"]["evaluated"] == 1
    _, again = code_json(blessed, *operators)
    assert again["evaluated"] == 0 and again["ledger_check"]["evaluated"] == 0  # all from the cache
    boundary = next(m for m in again["mutants"] if m["ledger_key"] == planted["boundary"].ledger_key)  # type: ignore[attr-defined]
    assert boundary["status"] == "equivalent" and boundary["ledger"]["verdict"] == "verified"
    (planted["dep"] / "METADATA").write_text(DEP_METADATA.format(version="2.0"))  # type: ignore[operator]
    _, changed = code_json(blessed, *operators)
    assert changed["versions"]["mutfake-dep"] == "2.0"
    assert changed["evaluated"] == len(changed["mutants"]) and changed["ledger_check"]["evaluated"] == 1
    boundary = next(m for m in changed["mutants"] if m["ledger_key"] == planted["boundary"].ledger_key)  # type: ignore[attr-defined]
    assert boundary["ledger"]["versions_note"] == "confirmed under other versions: mutfake-dep 1.0 (this run 2.0)"
    assert changed["ledger_check"]["other_versions"] == 1


def test_a_ledger_entry_with_malformed_versions_is_exit_2(blessed) -> None:
    ledger = blessed.root / "goldens" / "mutations" / "equivalent.toml"
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_text('[[equivalent]]\ndigest = "0123456789abcdef"\nid = "x"\nreason = "r"\nconfirmed_under = "2.0"\n')
    done = blessed.vtgate("mutate", "--code", "-q")
    assert done.returncode == 2
    assert "confirmed_under must be a table of version strings" in done.stderr


# A function that compares a path argument with where its own module lives (vtengine's
# check_single_tree): the probes call it with the tree's own folder, so in a mutated copy the
# recorded path names the original tree. The differential check moves recorded paths under the
# replaying tree; without that, every mutant of it (this message's regrouping too) "differs".
PLANTED_TREE_CHECK = '''

from pathlib import Path as _Path


def _in_this_tree(directory) -> str:
    here = _Path(__file__).resolve().parent
    message = "outside: " + str(here) + " is not in " + str(directory)
    if not here.is_relative_to(_Path(directory).resolve()):
        raise RuntimeError(message)
    return "ok"


_generate_checked = generate


def generate(prompt: str = "hi", tokens: int = 12) -> dict:
    _in_this_tree(_Path(__file__).resolve().parent)
    return _generate_checked(prompt, tokens)
'''


def test_a_recorded_path_of_the_tree_is_replayed_as_the_copys_own(blessed) -> None:
    source = blessed.root / "src" / "mutfake" / "__init__.py"
    source.write_text(source.read_text() + PLANTED_TREE_CHECK)
    blessed.commit("a function that checks its argument is its own tree")
    mutants = [m for m in generate(blessed.root, ["src/mutfake"])
               if m.function == "_in_this_tree" and m.operator == "reassociate"]
    assert mutants, "the generator writes no regrouping of the message"
    regrouped = mutants[0]
    ledger = blessed.root / "goldens" / "mutations" / "equivalent.toml"
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_text(f'[[equivalent]]\ndigest = "{regrouped.ledger_key}"\nid = "{regrouped.ident}"\n'
                      f'reason = "str concatenation is associative: the same message"\n')
    blessed.commit("the regrouped message is claimed equivalent")
    _, report = code_json(blessed, "--operator", "reassociate")
    entry = next(m for m in report["mutants"] if m["ledger_key"] == regrouped.ledger_key)
    assert entry["status"] == "equivalent", (entry["detail"], entry["ledger"])
    assert entry["ledger"]["verdict"] == "verified" and "no difference over" in entry["ledger"]["evidence"]


def test_confirm_ledger_records_this_runs_versions_on_the_entries_it_verified_and_nothing_else(blessed) -> None:
    planted = _planted(blessed)
    (planted["dep"] / "METADATA").write_text(DEP_METADATA.format(version="2.0"))  # type: ignore[operator]
    ledger = blessed.root / "goldens" / "mutations" / "equivalent.toml"
    before = ledger.read_text()
    done = blessed.vtgate("mutate", "--code", "-j", "2", "--operator", "compare-boundary", "--confirm-ledger")
    text = " ".join((done.stdout + done.stderr).split())
    assert "confirmed_under (ml_dtypes" not in text and "mutfake-dep 2.0" in text, text
    assert "recorded on 1 entry this run verified" in text, text
    after = ledger.read_text()
    stamped = f'confirmed_under = {{ python = "{platform.python_version()}", mutfake-dep = "2.0" }}\n'
    # the verified entry's line is replaced in place; the two entries this run did not verify are untouched
    assert after == before.replace(
        f'confirmed_under = {{ python = "{platform.python_version()}", mutfake-dep = "1.0" }}\n', stamped)
    assert after != before
    _, again = code_json(blessed, "--operator", "compare-boundary")
    boundary = next(m for m in again["mutants"] if m["ledger_key"] == planted["boundary"].ledger_key)  # type: ignore[attr-defined]
    assert boundary["ledger"]["verdict"] == "verified" and boundary["ledger"]["versions_note"] is None


def test_confirm_ledger_on_some_gates_is_refused_and_writes_nothing(blessed) -> None:
    _planted(blessed)
    ledger = blessed.root / "goldens" / "mutations" / "equivalent.toml"
    before = ledger.read_text()
    done = blessed.vtgate("mutate", "--code", "-g", "strict-hi", "--confirm-ledger")
    assert done.returncode == 2 and "drop -g/-k" in " ".join(done.stderr.split()), done.stderr
    done = blessed.vtgate("mutate", "--confirm-ledger")
    assert done.returncode == 2 and "go with --code" in " ".join(done.stderr.split()), done.stderr
    assert ledger.read_text() == before


def test_a_ledger_confirm_ledger_cannot_write_ends_the_run_with_exit_2_and_the_file_as_it_was(blessed) -> None:
    """The run verified an entry, but its layout (a multi-line reason with a line that starts like a
    table header) cannot be edited safely: the message names the ledger, the exit code is 2 whatever
    the score, the JSON report is still written and the file is byte for byte as it was."""
    planted = _planted(blessed)
    ledger = blessed.root / "goldens" / "mutations" / "equivalent.toml"
    tricky = ledger.read_text().replace('reason = "x is never exactly 1.0 where the engine calls it"',
                                        'reason = """x is never exactly 1.0\n[where the engine calls it]"""')
    assert tricky != ledger.read_text()
    ledger.write_text(tricky)
    report_path = blessed.root.parent / "code.json"
    done = blessed.vtgate("mutate", "--code", "-q", "-j", "2", "--operator", "compare-boundary", "--confirm-ledger",
                          "--json", str(report_path))
    text = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 2, text
    assert f"{ledger}: recording versions would" in text and "nothing was written" in text, text
    assert "recorded on" not in text
    assert ledger.read_text() == tricky
    report = json.loads(report_path.read_text())
    boundary = next(m for m in report["mutants"] if m["ledger_key"] == planted["boundary"].ledger_key)  # type: ignore[attr-defined]
    assert boundary["ledger"]["verdict"] == "verified"


# A ledger entry whose mutant turns strict-hi red the first time it runs anywhere, never again: it drops a
# token while the marker file (outside every copy, named by MUTFAKE_MARKER) is missing, and makes it. The
# original never reaches the marker (12 > 12 is false). The gate that "kills" the entry is flaky there.
FIRST_RUN_ONLY = '''

import os as _os
import pathlib as _pathlib


def _one_fewer_on_a_first_run(tokens: int) -> int:
    marker = _pathlib.Path(_os.environ["MUTFAKE_MARKER"])
    if tokens > 12 and not marker.exists():
        marker.touch()
        return tokens - 1
    return tokens


_generate_plain = generate


def generate(prompt: str = "hi", tokens: int = 12) -> dict:
    return _generate_plain(prompt, _one_fewer_on_a_first_run(tokens))
'''


def test_a_gate_red_once_and_green_when_run_again_leaves_the_entry_unverified(blessed) -> None:
    """A red gate refutes a ledger entry only when it is red again on a fresh copy of the mutant: one red run of a
    flaky gate is neither a refutation (the tool would say "delete the entry") nor evidence for it."""
    source = blessed.root / "src" / "mutfake" / "__init__.py"
    source.write_text(source.read_text() + FIRST_RUN_ONLY)
    blessed.commit("a function that drops a token the first time tokens > 12")
    mutant = next(m for m in generate(blessed.root, ["src/mutfake"])
                  if m.function == "_one_fewer_on_a_first_run" and m.description == "tokens > 12 -> tokens >= 12")
    ledger = blessed.root / "goldens" / "mutations" / "equivalent.toml"
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_text(f'[[equivalent]]\ndigest = "{mutant.ledger_key}"\nid = "{mutant.ident}"\n'
                      'reason = "strict-hi asks for 12 tokens, never more"\n')
    blessed.commit("a ledger entry")
    marker = blessed.root.parent / "first-run-marker"
    _, report = code_json(blessed, "--operator", "compare-boundary", env={"MUTFAKE_MARKER": str(marker)})
    assert marker.exists()  # the mutant ran its dropping branch once
    found = next(m for m in report["mutants"] if m["ledger_key"] == mutant.ledger_key)
    assert found["status"] == "ledger-unverified" and found["killed_by"] is None, found
    assert found["ledger"]["verdict"] == "unverified" and found["ledger"]["refuted_by"] is None
    assert "strict-hi was red once" in found["detail"] and "green when run again on a fresh copy" in found["detail"]
    assert found["ledger"]["evidence"] == found["detail"]
    counts = report["ledger_check"]
    assert (counts["refuted_by_gate"], counts["unverified"], counts["verified"]) == (0, 1, 0)
    marker.unlink()
    _, again = code_json(blessed, "--operator", "compare-boundary", env={"MUTFAKE_MARKER": str(marker)})
    # not cached: judged afresh, the same way
    second = next(m for m in again["mutants"] if m["ledger_key"] == mutant.ledger_key)
    assert second["status"] == "ledger-unverified" and not second["cached"]
