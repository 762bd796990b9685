"""How probe runs happen: identical (probe, args, env) runs once per check and is shared; env pins are
isolated per gate; independent runs go in parallel; the stale guard catches an observation of code
other than the tree under --root."""

from __future__ import annotations

import shutil

from vtgate.run.check import run_check
from vtgate.treehash import source_tree_hash

GEN = 'probe = "fakeengine:generate"\nargs = { prompt = "hello", tokens = 12 }\n'


def test_identical_runs_happen_once_and_are_shared(project, monkeypatch) -> None:
    log = project.root / "runs.log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    project.write_suite(
        '[[gate]]\nname = "strict"\nkind = "golden"\n' + GEN
        + '\n[[gate]]\nname = "anchor"\nkind = "anchor"\n' + GEN
        + '\n[[gate]]\nname = "inv"\nkind = "invariance"\n' + GEN + 'invariant_over = { FAKE_BUDGET = ["0", "1"] }\n'
        + '\n[[gate]]\nname = "cache"\nkind = "counters"\n' + GEN + 'over = { FAKE_BUDGET = ["0", "1"] }\n'
        # same probe and args but argument order differs: still the same run
        + '\n[[gate]]\nname = "band"\nkind = "band"\nprobe = "fakeengine:generate"\n'
        + 'args = { tokens = 12, prompt = "hello" }\nbands = { misses = [0, 100] }\n'
    )
    project.bless("strict", "anchor", "cache")
    log.unlink()
    report = run_check(project.suite())
    assert [g.status for g in report.gates] == ["green"] * 5
    # requested: strict 1, anchor 1, inv 3, cache 2, band 1 = 8; distinct: baseline, budget 0, budget 1 = 3
    assert (report.probe_requests, report.probe_runs, report.shared_runs) == (8, 3, 5)
    assert len(log.read_text().splitlines()) == 3
    assert report.to_json()["probe_runs"] == {"requested": 8, "run": 3, "shared": 5}


def test_env_pins_do_not_leak_between_gates(project) -> None:
    project.write_suite(
        '[[gate]]\nname = "pinned"\nkind = "bitident"\nprobe = "fakeengine:echo_env"\n'
        'env = { FAKE_PIN = "1" }\nenv_reason = "measures the pinned arm"\n'
        "configs = { a = {}, b = { env = { FAKE_OTHER = \"x\" } } }\n"
        '\n[[gate]]\nname = "plain"\nkind = "bitident"\nprobe = "fakeengine:echo_env"\n'
        "configs = { a = {}, b = {} }\n"
    )
    report = run_check(project.suite(), jobs=1)
    pinned, plain = report.gate("pinned"), report.gate("plain")
    assert pinned.observations["a"]["cases"] == {"FAKE_PIN": "1"}
    assert pinned.observations["b"]["cases"] == {"FAKE_OTHER": "x", "FAKE_PIN": "1"}
    assert plain.observations["a"]["cases"] == {}
    assert plain.observations["b"]["cases"] == {}
    # nothing to compare in "plain" (no FAKE_ knobs at all): an error, never a vacuous green
    assert plain.status == "error" and plain.error_kind == "probe"


def test_extra_env_reaches_every_run_under_the_gate_pin(project) -> None:
    project.write_suite(
        '[[gate]]\nname = "pinned"\nkind = "bitident"\nprobe = "fakeengine:echo_env"\n'
        'env = { FAKE_PIN = "gate" }\nenv_reason = "the gate pin wins over a mutation of the same knob"\n'
        "configs = { a = {}, b = {} }\n"
    )
    report = run_check(project.suite(), extra_env={"FAKE_PIN": "mutation", "FAKE_M": "1"})
    assert report.gate("pinned").observations["a"]["cases"] == {"FAKE_M": "1", "FAKE_PIN": "gate"}


def test_independent_runs_go_in_parallel(project) -> None:
    # a barrier, not a stopwatch: each run checks in, then waits until all four have checked in; run
    # one after another, the first would wait alone and report n = 1 (red) when its patience runs out
    barrier = project.root / "barrier"
    barrier.mkdir()
    script = project.root / "barrier.sh"
    script.write_text(
        f'touch "{barrier}/$1"\ni=0\n'
        f'while [ "$(ls "{barrier}" | wc -l)" -lt 4 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done\n'
        f'printf \'{{"counters": {{"n": %d}}}}\\n\' "$(ls "{barrier}" | wc -l)"\n')
    gates = "".join(
        f'[[gate]]\nname = "h{i}"\nkind = "band"\nprobe = {{ cmd = ["sh", "{script}", "h{i}"] }}\n'
        "bands = { n = [4, 4] }\n\n"
        for i in range(4)
    )
    project.write_suite(gates, header="")
    report = run_check(project.suite(), jobs=4)
    assert [(g.status, g.summary) for g in report.gates] == [("green", "1/1 in band: n 4 in [4, 4]")] * 4


def test_stale_guard_errors_when_the_probe_ran_other_code(project, tmp_path_factory) -> None:
    # --root points at a copy whose engine differs from the project's own copy
    project.write_suite('[[gate]]\nname = "band"\nkind = "band"\n' + GEN + "bands = { misses = [0, 100] }\n")
    other = tmp_path_factory.mktemp("other")
    shutil.copytree(project.root / "src", other / "src")
    (other / "src" / "fakeengine" / "extra.py").write_text("# a change in the tree under test\n")
    suite = project.suite()
    fine = run_check(suite, root=other)
    assert fine.gates[0].status == "green"  # the copy's own code ran: hashes agree
    # a misconfigured suite whose pythonpath misses the tree, with an "installed copy" on PYTHONPATH
    suite_path = project.root / "vtgate.toml"
    suite_path.write_text(suite_path.read_text().replace('pythonpath = ["src"]', 'pythonpath = ["lib"]'))
    shadow = run_check(project.suite(), root=other, extra_env={"PYTHONPATH": str(project.root / "src")})
    gate = shadow.gates[0]
    assert gate.status == "error" and gate.error_kind == "stale"
    expected = source_tree_hash(other / "src" / "fakeengine")
    found = source_tree_hash(project.root / "src" / "fakeengine")
    assert gate.error == (
        f"stale guard: probe fakeengine:generate ran code hashing {found[:12]}…, but src/fakeengine under "
        f"{other} hashes {expected[:12]}…; another copy was imported (check [suite] pythonpath, stale installs, "
        f"__pycache__); it imported from {project.root / 'src' / 'fakeengine'}"
    )
    assert shadow.exit_code == 3


def test_stale_guard_needs_the_hash_in_the_observation(project) -> None:
    (project.root / "probe.py").write_text('print(\'{"counters": {"n": 1}}\')\n')
    project.write_suite('[[gate]]\nname = "nohash"\nkind = "band"\nprobe = { cmd = ["python3", "probe.py"] }\n'
                        "bands = { n = [0, 5] }\n")
    gate = run_check(project.suite()).gates[0]
    assert gate.status == "error" and gate.error_kind == "stale"
    assert gate.error == (f"stale guard: the observation of cmd python3 probe.py has no meta.source_tree_hash, so it "
                          f"cannot prove it ran src/fakeengine under {project.root}")


def test_missing_source_tree_under_root_is_a_config_error(project, tmp_path_factory) -> None:
    project.write_suite('[[gate]]\nname = "band"\nkind = "band"\n' + GEN + "bands = { misses = [0, 100] }\n")
    empty = tmp_path_factory.mktemp("empty")
    gate = run_check(project.suite(), root=empty).gates[0]
    assert gate.status == "error" and gate.error_kind == "config"
    assert gate.error == f"[suite] source_tree = 'src/fakeengine' does not exist under {empty}; is --root the right tree?"


def test_root_option_on_the_command_line(project, tmp_path_factory) -> None:
    project.write_suite('[[gate]]\nname = "band"\nkind = "band"\n' + GEN + "bands = { misses = [0, 100] }\n")
    other = tmp_path_factory.mktemp("other")
    shutil.copytree(project.root / "src", other / "src")
    done, report = project.check_json("--root", str(other))
    assert done.returncode == 0 and report["root"] == str(other)
