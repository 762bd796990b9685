"""The perf kind end to end, on a fake engine in a real git project, through the real vtgate CLI
in subprocesses. Every slowdown is large (3x) so no verdict here depends on how loaded the machine
is; the statistics themselves are tested on synthetic samples in test_perfstats.py."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import psutil
import pytest

pytestmark = pytest.mark.slow  # every test times interleaved legs of real probes: .ci/run runs it with -m slow

SLOWER = 'env = { FAKE_SLOW = "3" }\nenv_reason = "a candidate three times slower"'


def gate_of(report: dict) -> dict:
    (gate,) = report["gates"]
    return gate


def test_a_three_times_slower_candidate_is_red_with_its_ratio_interval_legs_and_host(perfkit, tmp_project, tmp_path):
    project = tmp_project(perfkit.gate(min_ratio=0.8, extra=SLOWER))
    junit = tmp_path / "junit.xml"
    code, report, stderr = project.check_json("-k", "perf", "--junit", str(junit))
    gate = gate_of(report)
    assert code == 1 and gate["status"] == "red"
    assert gate["measured"]["ratio"] < 0.8 and gate["measured"]["high"] < 0.8
    assert gate["measured"]["legs"] == 6 and gate["measured"]["rounds"] == 3
    assert all(v["load_per_core"] is not None for v in gate["measured"]["values"])
    assert "decode: work +" in gate["summary"]  # the stage that moved
    assert "interval [" in stderr and "host load" in stderr
    failure = ET.parse(junit).getroot().find("testsuite/testcase/failure")
    assert failure is not None and failure.get("message", "").startswith("ratio 0.")
    assert "6 legs" in failure.get("message", "") and "host load" in failure.get("message", "")


def test_two_perf_gates_of_one_check_never_time_at_the_same_moment(perfkit, tmp_project, tmp_path):
    # different rounds: two distinct runs (identical gates would share one run)
    project = tmp_project(perfkit.gate("perf-a", min_ratio=0.3) + perfkit.gate("perf-b", min_ratio=0.3, rounds=4),
                          blessed=("perf-a", "perf-b"))
    marks = tmp_path / "marks"
    marks.mkdir()
    code, report, _ = project.check_json("-k", "perf", "-j", "2", env={"FAKE_MARK_DIR": str(marks)})
    assert code == 0 and [g["status"] for g in report["gates"]] == ["green", "green"]
    spans = sorted(tuple(map(int, p.read_text().split())) for p in marks.iterdir())
    assert len(spans) == 6 + 8
    assert all(end <= next_start for (_, end), (next_start, _) in zip(spans, spans[1:], strict=False))


def test_interleaving_alternates_roles_round_by_round(perfkit, tmp_project):
    project = tmp_project(perfkit.gate(min_ratio=0.8, rounds=4, extra=SLOWER))
    _, report, _ = project.check_json("-k", "perf")
    roles = [v["role"][0] for v in gate_of(report)["measured"]["values"]]
    assert "".join(roles) == "crrccrrc"


def leg_pids(marks: Path) -> list[int]:
    return [int(path.name.split("-")[0]) for path in marks.iterdir()]


def test_with_process_fork_each_leg_runs_in_a_process_of_its_own_forked_from_its_roles_server(
        perfkit, tmp_project, tmp_path):
    # what a probe keeps in its process (a loaded model, where its memory landed) is never shared by
    # two legs, so the rounds are independent (docs/perf.md, how a gate runs)
    project = tmp_project(perfkit.gate(min_ratio=0.3, rounds=4, extra='process = "fork"'))
    marks = tmp_path / "marks"
    marks.mkdir()
    code, report, _ = project.check_json("-k", "perf", env={"FAKE_MARK_DIR": str(marks)})
    gate = gate_of(report)
    assert code == 0 and gate["measured"]["process"] == "fork"
    pids = leg_pids(marks)
    assert len(pids) == 8 and len(set(pids)) == 8  # 4 rounds, no warm-up: a process per leg
    assert gate["measured"]["pairs"] is None and "two-level" not in gate["summary"]


def test_warm_processes_are_reused_and_their_rounds_resampled_by_process_pair(perfkit, tmp_project, tmp_path):
    project = tmp_project(perfkit.gate(min_ratio=0.3, rounds=4, extra="workers = 2"))  # process = "warm": the default
    marks = tmp_path / "marks"
    marks.mkdir()
    code, report, _ = project.check_json("-k", "perf", env={"FAKE_MARK_DIR": str(marks)})
    gate = gate_of(report)
    assert code == 0 and gate["measured"]["process"] == "warm"
    assert len(leg_pids(marks)) == 8 and len(set(leg_pids(marks))) == 4  # 2 processes per role
    assert gate["measured"]["pairs"] == 2
    assert "two-level percentile bootstrap over process pairs, then rounds (2 pairs)" in gate["summary"]


def test_each_look_runs_in_new_warm_pairs_each_process_with_a_random_layout(perfkit, tmp_project, tmp_path,
                                                                            monkeypatch):
    # the leg runner itself, without a threshold (min_ratio None): it takes every look, whatever the host
    from vtgate.perf.legs import measure, paired_rounds
    from vtgate.perf.stats import paired_ratio

    project = tmp_project(perfkit.gate())
    marks, pads = tmp_path / "marks", tmp_path / "pads"
    marks.mkdir()
    pads.mkdir()
    monkeypatch.chdir(project.root)
    monkeypatch.setenv("FAKE_MARK_DIR", str(marks))
    monkeypatch.setenv("FAKE_PAD_DIR", str(pads))
    record = measure({"callable": "fakeeng:timed"}, {}, "timing.cpu_tok_s", {"env": {}}, {"env": {"FAKE_SLOW": "1"}},
                     3, 0, 60.0, False, str(project.suite), None, "warm", looks=2, workers=2)
    assert record["outcome"] == "measured" and record["stopped"] == "all looks taken"
    judged = [leg for leg in record["legs"] if leg["round"] is not None]
    assert [leg["worker"] for leg in judged] == [0, 0, 1, 1, 0, 0, 3, 3, 2, 2, 3, 3]  # new pairs 2 and 3 (round k: k mod 2)
    assert len(leg_pids(marks)) == 12 and len(set(leg_pids(marks))) == 8  # 2 roles x 2 pairs x 2 looks
    lengths = [int(path.read_text()) for path in pads.iterdir()]
    assert len(lengths) == 8 and len(set(lengths)) > 1  # every process its own stack padding
    candidate, reference, groups = paired_rounds(record["legs"], record["process"])
    assert groups == [0, 1, 0, 3, 2, 3] and paired_ratio(candidate, reference, groups=groups).pairs == 4


def test_an_unchanged_candidate_is_green(perfkit, tmp_project):
    project = tmp_project(perfkit.gate(min_ratio=0.33))
    code, report, _ = project.check_json("-k", "perf")
    assert code == 0 and gate_of(report)["status"] == "green"
    assert gate_of(report)["measured"]["low"] >= 0.33


def test_a_fast_wrong_answer_is_rejected(perfkit, tmp_project):
    project = tmp_project(perfkit.gate(min_ratio=0.33))
    project.suite.write_text(project.suite.read_text().replace(
        "quiet = false", 'quiet = false\nenv = { FAKE_WRONG = "1" }\nenv_reason = "a candidate whose tokens are off by one"'))
    code, report, _ = project.check_json("-k", "perf")
    gate = gate_of(report)
    assert code == 1 and gate["status"] == "red"
    assert "leg 0 (candidate, round 1) rejected" in gate["summary"]
    assert "tokens first differ at position 0" in gate["summary"]


def test_perf_gates_are_opt_in_so_the_ordinary_check_never_times(perfkit, tmp_project):
    project = tmp_project(perfkit.gate() + '\n[[gate]]\nname = "plain"\nkind = "band"\nprobe = "fakeeng:timed"\n'
                          'bands = { "counters.steps" = [12, 12] }\n')
    code, report, _ = project.check_json()
    assert code == 0 and [g["name"] for g in report["gates"]] == ["plain"]
    code, report, _ = project.check_json("-k", "perf")
    assert [g["name"] for g in report["gates"]] == ["fake-perf"]
    code, report, _ = project.check_json("--gate", "fake-perf")
    assert [g["name"] for g in report["gates"]] == ["fake-perf"]
    listed = project.vtgate("list", "--suite", str(project.suite))
    assert "fake-perf" in listed.stdout + listed.stderr


def test_a_probe_without_the_timing_metric_is_an_error_naming_the_leg_and_metric(perfkit, tmp_project):
    project = tmp_project(perfkit.gate())
    code, report, _ = project.check_json("-k", "perf", env={"FAKE_NO_TIMING": "1"})
    gate = gate_of(report)
    assert code == 3 and gate["status"] == "error" and gate["error_kind"] == "probe"
    assert "leg 0 (candidate, round 1)" in gate["error"] and "'timing.cpu_tok_s'" in gate["error"]


def test_a_noisy_host_is_an_error_saying_what_was_noisy_not_a_verdict(perfkit, tmp_project):
    # max_load_per_core: the old name of max_other_cpu_per_core, which suites written before it still load with
    project = tmp_project(perfkit.gate(quiet="{ max_load_per_core = 1e9, min_available_mb = 1e12 }"))
    code, report, stderr = project.check_json("-k", "perf")
    gate = gate_of(report)
    assert code == 3 and gate["status"] == "error" and gate["error_kind"] == "noisy"
    assert "host not quiet before leg 0 (candidate, round 1)" in gate["error"]
    assert "available memory" in gate["error"] and "--wait-quiet" in gate["error"]


def test_a_host_that_never_gets_quiet_within_wait_quiet_is_an_error_after_waiting(perfkit, tmp_project):
    project = tmp_project(perfkit.gate(quiet="{ max_other_cpu_per_core = 1e9, min_available_mb = 1e12 }"))
    started = time.monotonic()
    code, report, _ = project.check_json("-k", "perf", "--wait-quiet", "2")
    assert code == 3 and gate_of(report)["error_kind"] == "noisy"
    assert time.monotonic() - started >= 2.0  # it did wait for a window before giving up


def test_wait_quiet_measures_once_a_competing_process_is_gone(perfkit, tmp_project, tmp_path: Path):
    project = tmp_project(perfkit.gate(min_ratio=0.8, extra=SLOWER,
                                    quiet='{ max_load_per_core = 1e9, competing = ["noisyhog"] }'))
    hog = tmp_path / "noisyhog"
    hog.write_bytes(Path("/bin/sleep").read_bytes())
    hog.chmod(0o755)
    # an orphan (not a descendant of vtgate, which the preflight never counts) that ends by itself
    subprocess.run(["sh", "-c", f'"{hog}" 3 >/dev/null 2>&1 &'], check=True)
    code, report, _ = project.check_json("-k", "perf", "--wait-quiet", "60")
    gate = gate_of(report)
    assert code == 1 and gate["status"] == "red", gate["summary"]
    first_leg = gate["measured"]["values"][0]
    assert first_leg["leg"] == 0


@pytest.mark.parametrize(("process", "at_least"), [("warm", 1 + 2 * 2), ("fork", 1 + 1 + 1)])
def test_the_preflight_counts_the_runners_warm_processes_and_fork_servers_as_the_gates_own(perfkit, tmp_project,
                                                                                            process, at_least):
    """What the preflight never counts as another process: the leg runner's tree, which holds its warm
    processes (2 per role here), or its zygote and the fork server the zygote forked (whose children
    are the legs), though each runs in a session of its own. The preflight is not enforced; what is asserted is what the legs recorded about the gate's own tree (a 3x slower candidate, so the verdict is red on any host)."""
    project = tmp_project(perfkit.gate(min_ratio=0.8, extra=f'{SLOWER}\nprocess = "{process}"\nworkers = 2'))
    code, report, _ = project.check_json("-k", "perf")
    gate = gate_of(report)
    assert code == 1 and gate["status"] == "red", gate["summary"]
    values = gate["measured"]["values"]
    assert max(v["own_processes"] for v in values) >= at_least
    assert all(v["other_cpu_per_core"] is not None for v in values)


def test_the_reference_can_be_a_revision_and_a_slower_working_tree_is_red(perfkit, tmp_project):
    project = tmp_project(perfkit.gate(min_ratio=0.8, reference='{ ref = "main" }'))
    project.set_slow(3.0)  # the working tree slows down; main keeps the fast engine
    code, report, _ = project.check_json("-k", "perf")
    gate = gate_of(report)
    assert code == 1 and gate["status"] == "red"
    assert gate["measured"]["reference"]["commit"] == perfkit.git(project.root, "rev-parse", "main")
    assert perfkit.git(project.root, "worktree", "list").count("\n") == 0  # exported, never a git worktree


def commit_on_branch(perfkit, project, branch: str, change) -> str:
    """Point ``branch`` at a new commit of main plus ``change(source)``; main and the working tree stay."""
    source = project.root / "src" / "fakeeng.py"
    good = source.read_text()
    perfkit.git(project.root, "checkout", "-q", branch)
    source.write_text(change(good))
    commit = project.commit(f"{branch}: changed engine")
    perfkit.git(project.root, "checkout", "-q", "main")
    assert source.read_text() == good
    return commit


def test_a_reference_revision_that_does_not_build_is_an_error_naming_the_leg(perfkit, tmp_project):
    project = tmp_project(perfkit.gate(reference='{ ref = "broken" }'), blessed=())
    perfkit.git(project.root, "branch", "broken")
    perfkit.bless(project)
    broken = commit_on_branch(perfkit, project, "broken", lambda text: "def timed(:\n")
    code, report, _ = project.check_json("-k", "perf")
    gate = gate_of(report)
    assert code == 3 and gate["status"] == "error" and gate["error_kind"] == "probe"
    assert f"leg 1 (reference, round 1, broken = {broken[:12]}) failed" in gate["error"]
    assert "SyntaxError" in gate["error"]


def test_a_reference_revision_whose_outputs_differ_is_an_error_naming_the_leg(perfkit, tmp_project):
    project = tmp_project(perfkit.gate(reference='{ ref = "other" }'), blessed=())
    perfkit.git(project.root, "branch", "other")
    perfkit.bless(project)
    other = commit_on_branch(perfkit, project, "other", lambda text: text.replace("step * 31 + 7", "step * 31 + 8"))
    code, report, _ = project.check_json("-k", "perf")
    gate = gate_of(report)
    assert code == 3 and gate["error_kind"] == "config"
    assert f"leg 1 (reference, round 1, other = {other[:12]}): outputs differ" in gate["error"]


def test_an_unknown_reference_revision_is_an_error_with_the_fix(perfkit, tmp_project):
    project = tmp_project(perfkit.gate(reference='{ ref = "no-such-branch" }'), blessed=())
    done = project.vtgate("bless", "fake-perf", "--suite", str(project.suite), "--reason", "x",
                          env={"VTGATE_PERF_PREFLIGHT": "record"})
    assert done.returncode == 3
    assert "cannot bless (config)" in done.stderr and "'no-such-branch' is not a commit" in done.stderr
    assert "fix the gate's reference.ref" in done.stderr


def test_bad_perf_gate_declarations_are_named_at_load(perfkit, tmp_project):
    project = tmp_project(perfkit.gate(), blessed=())
    project.suite.write_text(project.suite.read_text().replace("min_ratio = 0.8", "min_ratio = -1")
                             .replace('reference = { env = { FAKE_SLOW = "1" } }', 'reference = { rev = "main" }'))
    done = project.vtgate("check", "--suite", str(project.suite), "-k", "perf")
    assert done.returncode == 2
    assert "min_ratio" in done.stderr and "reference = { ref = \"main\" }" in done.stderr
    project.suite.write_text(project.suite.read_text().replace("min_ratio = -1", "min_ratio = 0.8")
                             .replace('reference = { rev = "main" }', 'reference = { ref = "main" }\nprocess = "spawn"'))
    done = project.vtgate("check", "--suite", str(project.suite), "-k", "perf")
    assert done.returncode == 2 and "process must be one of 'fork', 'warm', 'fresh'" in done.stderr
    project.suite.write_text(project.suite.read_text().replace('process = "spawn"', 'process = "warm"\nfresh_process = true'))
    done = project.vtgate("check", "--suite", str(project.suite), "-k", "perf")
    assert done.returncode == 2 and "fresh_process = true contradicts process = 'warm'" in done.stderr


@pytest.mark.parametrize(("sig", "expected"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_ctrl_c_or_sigterm_between_legs_leaves_no_leg_process_no_worktree_and_no_report(perfkit, tmp_project,
                                                                                        tmp_path: Path, sig, expected):
    project = tmp_project(perfkit.gate(rounds=6, reference='{ ref = "main" }'))
    marks = tmp_path / "marks"
    marks.mkdir()
    report = tmp_path / "report.json"
    env = {**os.environ, "FAKE_MARK_DIR": str(marks), "FAKE_PAUSE": "0.5"}
    env.pop("PYTHONPATH", None)
    process = subprocess.Popen([sys.executable, "-m", "vtgate", "check", "--suite", str(project.suite), "-k", "perf",
                                "--json", str(report)],
                               cwd=project.root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    deadline = time.monotonic() + 120
    while len(list(marks.iterdir())) < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(list(marks.iterdir())) >= 3, "the legs never started"
    tree = psutil.Process(process.pid).children(recursive=True)  # the leg runner, fork servers, zygote, a leg
    os.killpg(process.pid, sig)  # what a terminal's Ctrl-C (or a CI runner's timeout) sends to the group
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == expected, stderr.decode()
    assert "interrupted: vtgate check" in stderr.decode() and "Traceback" not in stderr.decode()
    assert list(tmp_path.glob("*report.json*")) == []  # neither the report nor a half-written one
    assert len(tree) >= 3
    assert [p.pid for p in tree if still_running(p)] == []
    leg_pids = {int(p.name.split("-")[0]) for p in marks.iterdir()}
    alive = [pid for pid in leg_pids if psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]
    assert alive == []
    assert processes_inside(project.root) == []  # neither the leg runner nor a leg (both run there)
    assert perfkit.git(project.root, "worktree", "list").count("\n") == 0
    cache = project.root / ".vtgate-cache" / "perf-ref"
    assert not [p for p in cache.iterdir() if p.name.startswith(".partial")]


def still_running(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def processes_inside(root: Path) -> list[int]:
    found = []
    for process in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if process.status() != psutil.STATUS_ZOMBIE and Path(process.cwd()).is_relative_to(root):
                found.append(process.pid)
    return found


def test_bless_pins_both_roles_exact_outputs(perfkit, tmp_project):
    project = tmp_project(perfkit.gate())
    golden = json.loads((project.root / "goldens" / "default" / "fake-perf.json").read_text())
    assert set(golden["value"]) == {"candidate", "reference"}
    assert set(golden["value"]["candidate"]) == {"tokens", "digests", "counters"}
