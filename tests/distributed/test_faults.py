"""Faults end runs cleanly (docs/distributed.md#what-happens-when): real ``dask scheduler`` and
``dask worker`` processes on localhost, killed with SIGKILL in the middle of a run, and SIGTERM (what
a CI job's timeout sends) to each CLI in a phase where it has children, threads and temporary trees.
Each test asserts the exit code, the message, that the run ended within a generous bound (a hang
detector, not a speed target), that no process the CLI started outlived it, that no worktree or
temporary copy is left, that the user's checkout is unchanged, and that the verdict cache holds only
complete verdicts. Also: ``vtgate mutate --code`` losing its scheduler (exit 3, or ``--fallback local``
with the local verdicts), a worker killed mid-probe or mid-mutant leaving no orphan, and a real dropped
link to a scheduler in its own network namespace. SIGTERM/SIGINT in every phase on this machine:
tests/test_signal_phases.py. Faults covered elsewhere: a worker killed mid-judgement (nanny and worker) is
retried on another worker (test_dask_bisect.py, test_dask_mutate.py); a worker running another
vtgate version, or none, is refused naming both versions (test_dask_bisect.py)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.watched import Watched

pytestmark = pytest.mark.slow

HANG = 60.0  # seconds: a run still going this long after its fault is hung (not a speed assertion)
BIN = Path(sys.executable).parent
FAST_LOSS = {"VT_DASK_CONNECT_TIMEOUT": "3", "VT_DASK_LOST_TIMEOUT": "10"}


def snapshot(repo: Path) -> tuple[str, str, str]:
    """The user's checkout: HEAD, status and worktree list."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout
    return git("rev-parse", "HEAD"), git("status", "--porcelain"), git("worktree", "list", "--porcelain")


def cached_verdicts(cache: Path) -> list[dict[str, Any]]:
    """Every verdict file in the cache, each of which must be complete JSON with a verdict."""
    records = []
    for path in sorted((cache / "verdicts").rglob("*")):
        if path.is_file():
            assert path.suffix == ".json", f"a stray file in the verdict cache: {path}"
            record = json.loads(path.read_text())
            assert record.get("verdicts") or record.get("verdict"), record
            records.append(record)
    return records


def bisect_run(kit: Any, repo: Path, cache: Path, address: str, env: dict[str, str], *extra: str) -> Watched:
    return Watched([*kit.VTBISECT, "run", "HEAD~11..HEAD", "-j", "2", "--cache-dir", str(cache), "--scheduler",
                    address, *extra, "--", "./judge.sh"], repo, env)


def assert_clean_bisection(kit: Any, repo: Path, cache: Path, before: tuple[str, str, str], run: Watched) -> None:
    assert snapshot(repo) == before  # HEAD, status and the worktree list (no worktree of vtbisect's)
    assert not list((cache / "worktrees").iterdir())
    assert run.survivors() == []
    cached_verdicts(cache)


@pytest.mark.parametrize("fallback", [False, True], ids=["exit-3", "fallback-local"])
def test_a_scheduler_killed_mid_bisection_ends_the_run_or_hands_it_to_this_machine(kit, cluster_factory, tmp_path,
                                                                                     fallback):
    repo = tmp_path / "repo"
    shas = kit.make_repo(repo)
    before = snapshot(repo)
    cluster = cluster_factory("sched", [("w1", "")])
    cache = tmp_path / "cache"
    run = bisect_run(kit, repo, cache, cluster.address, {**FAST_LOSS, "VT_TEST_SLEEP": "1"},
                     *(["--fallback", "local"] if fallback else []))
    run.wait_until(lambda: "step 2 " in run.text(), "two steps judged on the cluster")
    os.killpg(cluster.scheduler.pid, signal.SIGKILL)
    code, seconds = run.finish()
    said = run.text()
    print(f"scheduler kill -9 -> exit {code} after {seconds:.1f} s")
    assert f"the Dask cluster of the scheduler at {cluster.address} was lost mid-run" in said
    if fallback:
        assert code == 1, said
        assert f"first bad commit {shas[6][:10]}" in said
        assert "the bisection goes on on this machine (--fallback local)" in said
    else:
        assert code == 3, said
        assert "Judged so far: " in said and "re-run the same command to resume" in said
        assert "Traceback" not in said
    assert_clean_bisection(kit, repo, cache, before, run)
    assert len(cached_verdicts(cache)) >= 2  # what was judged before the kill stays


def test_a_silent_scheduler_network_drop_ends_the_run_after_the_lost_timeout(kit, cluster_factory, tmp_path):
    """A hung scheduler process (SIGSTOP: its sockets stay open, nothing answers) closes no connection,
    as a network that drops packets does not (the real dropped link is the netns test below). The
    client's questions go unanswered; after VT_DASK_LOST_TIMEOUT the run ends, exit 3."""
    repo = tmp_path / "repo"
    kit.make_repo(repo)
    before = snapshot(repo)
    cluster = cluster_factory("silent", [("w1", "")])
    cache = tmp_path / "cache"
    run = bisect_run(kit, repo, cache, cluster.address, {**FAST_LOSS, "VT_DASK_LOST_TIMEOUT": "5",
                                                         "VT_TEST_SLEEP": "1"})
    run.wait_until(lambda: "step 2 " in run.text(), "two steps judged on the cluster")
    os.killpg(cluster.scheduler.pid, signal.SIGSTOP)
    try:
        code, seconds = run.finish()
    finally:
        os.killpg(cluster.scheduler.pid, signal.SIGCONT)
    said = run.text()
    print(f"scheduler frozen (network drop) -> exit {code} after {seconds:.1f} s")
    assert code == 3, said
    assert f"the Dask cluster of the scheduler at {cluster.address} was lost mid-run" in said
    assert "it has not answered for" in said and "Judged so far: " in said
    assert_clean_bisection(kit, repo, cache, before, run)
    assert len(cached_verdicts(cache)) >= 2


SLOW_WHILE_FLAGGED = """#!/bin/sh
# Notes its pid per commit; sleeps while the test's flag file exists; then judges: bad from value 7 on.
: > "$VT_TEST_MARKS/$(git rev-parse HEAD).$$"
if [ -e "$VT_TEST_MARKS/slow" ]; then sleep 60; fi
test "$(cat value)" -lt 7
"""


def test_a_worker_process_killed_under_its_nanny_is_restarted_its_orphaned_judge_killed_and_the_judgement_rerun(
        kit, cluster_factory, tmp_path):
    repo = tmp_path / "repo"
    shas = kit.make_repo(repo)
    before = snapshot(repo)
    cluster = cluster_factory("worker", [("w1", "")])
    marks = tmp_path / "marks"
    marks.mkdir()
    (marks / "slow").touch()
    judge = tmp_path / "slow-while-flagged.sh"
    judge.write_text(SLOW_WHILE_FLAGGED)
    judge.chmod(0o755)
    cache = tmp_path / "cache"
    run = Watched([*kit.VTBISECT, "run", "HEAD~11..HEAD", "-j", "2", "--cache-dir", str(cache), "--scheduler",
                   cluster.address, "--", str(judge)], repo, {"VT_TEST_MARKS": str(marks)})
    run.wait_until(lambda: len(list(marks.iterdir())) > 1, "a judgement started")
    orphan = int(next(m for m in marks.iterdir() if m.name != "slow").name.rsplit(".", 1)[1])
    nanny = psutil.Process(cluster.workers["w1"].pid)
    worker = next(p for p in nanny.children() if "spawn_main" in " ".join(p.cmdline()))
    worker.kill()  # the nanny survives and starts a new worker process; the judge it ran is orphaned
    (marks / "slow").unlink()
    code, seconds = run.finish(within=240)
    said = run.text()
    print(f"worker kill -9 (nanny alive) -> exit {code} after {seconds:.1f} s")
    assert code == 1, said
    assert f"first bad commit {shas[6][:10]}" in said
    assert_clean_bisection(kit, repo, cache, before, run)
    # the orphaned judge (sleeping 60 s in its own session) was killed by the restarted worker
    assert not psutil.pid_exists(orphan) or psutil.Process(orphan).status() == psutil.STATUS_ZOMBIE


def test_host_death_nanny_and_worker_killed_leaving_no_worker_ends_the_run_with_exit_3(kit, cluster_factory,
                                                                                       tmp_path):
    """Host death: the only worker's whole session (nanny and worker) SIGKILLed. The scheduler lives
    but has no worker to run the judgement: after VT_DASK_LOST_TIMEOUT the run ends, exit 3."""
    repo = tmp_path / "repo"
    kit.make_repo(repo)
    before = snapshot(repo)
    cluster = cluster_factory("host", [("w1", "")])
    marks = tmp_path / "marks"
    marks.mkdir()
    cache = tmp_path / "cache"
    run = bisect_run(kit, repo, cache, cluster.address, {**FAST_LOSS, "VT_TEST_MARKS": str(marks),
                                                         "VT_TEST_SLEEP": "30"})
    run.wait_until(lambda: any(marks.iterdir()), "a judgement started")
    cluster.kill("w1")
    code, seconds = run.finish()
    said = run.text()
    print(f"host death (nanny + worker kill -9, no other worker) -> exit {code} after {seconds:.1f} s")
    assert code == 3, said
    assert f"the Dask cluster of the scheduler at {cluster.address} was lost mid-run" in said
    assert "no worker" in said
    assert "Judged so far: 0 steps" in said
    assert_clean_bisection(kit, repo, cache, before, run)
    assert cached_verdicts(cache) == []  # the one judgement never finished


def _can_unshare_mounts() -> bool:
    return subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False).returncode == 0


@pytest.mark.skipif(not _can_unshare_mounts(), reason="needs `unshare -m` (a private mount namespace) to give a "
                    "worker a read-only folder")
def test_a_worker_whose_cache_folder_is_read_only_is_refused_naming_it_and_the_folder(kit, cluster_factory, tmp_path):
    """The worker runs in its own mount namespace where its cache folder is a read-only bind mount (as
    root, permissions alone would not stop it): exit 2 naming the worker and the folder, no verdict."""
    repo = tmp_path / "repo"
    kit.make_repo(repo)
    before = snapshot(repo)
    cluster = cluster_factory("readonly")
    folder = tmp_path / "ro-cache"
    folder.mkdir()
    argv = [str(BIN / "dask"), "worker", cluster.address, "--name", "ro", "--nthreads", "1", "--no-dashboard",
            "--local-directory", str(tmp_path / "dask-ro")]
    log = (tmp_path / "ro.log").open("wb")
    cluster.workers["ro"] = subprocess.Popen(
        ["unshare", "-m", "sh", "-c", 'mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" && exec "$@"',
         str(folder), *argv], env={**os.environ, "VT_DASK_WORKER_CACHE": str(folder)}, stdout=log,
        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    cluster.wait_for_workers(1)
    cache = tmp_path / "cache"
    run = bisect_run(kit, repo, cache, cluster.address, {})
    code, seconds = run.finish(within=120)
    said = run.text()
    assert code == 2, said
    assert "worker ro on " in said and f"cannot write its cache folder {folder}" in said and "VT_DASK_WORKER_CACHE" in said
    assert_clean_bisection(kit, repo, cache, before, run)
    assert cached_verdicts(cache) == []


def test_sigterm_to_vtbisect_during_cluster_steps_exits_143_and_cleans_up(kit, cluster_factory, tmp_path):
    repo = tmp_path / "repo"
    kit.make_repo(repo)
    before = snapshot(repo)
    cluster = cluster_factory("term", [("w1", ""), ("w2", "")])
    marks = tmp_path / "marks"
    marks.mkdir()
    cache = tmp_path / "cache"
    run = bisect_run(kit, repo, cache, cluster.address, {"VT_TEST_MARKS": str(marks), "VT_TEST_SLEEP": "30"})
    run.wait_until(lambda: len(list(marks.iterdir())) >= 2, "two judgements started")
    run.process.send_signal(signal.SIGTERM)
    code, seconds = run.finish()
    said = run.text()
    print(f"vtbisect SIGTERM during steps -> exit {code} after {seconds:.1f} s")
    assert code == 143, said
    assert "interrupted: vtbisect run (" in said and "Traceback" not in said
    assert_clean_bisection(kit, repo, cache, before, run)
    assert cached_verdicts(cache) == []


CHECK_SUITE = """\
[[gate]]
name = "slow"
kind = "band"
probe = {{ cmd = ["sh", "-c", "sleep 60 & echo $! > {pidfile}; wait"] }}
bands = {{ n = [0, 5] }}
"""


def test_sigterm_to_vtgate_check_during_probe_runs_exits_143_and_writes_no_report(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    pidfile = tmp_path / "sleeper.pid"
    (project / "vtgate.toml").write_text(CHECK_SUITE.format(pidfile=pidfile))
    report = tmp_path / "report.json"
    run = Watched([str(BIN / "vtgate"), "check", "--json", str(report)], project, {})
    run.wait_until(lambda: pidfile.exists() and pidfile.read_text().strip() != "", "the probe started")
    run.process.send_signal(signal.SIGTERM)
    code, seconds = run.finish()
    said = run.text()
    print(f"vtgate check SIGTERM during probes -> exit {code} after {seconds:.1f} s")
    assert code == 143, said
    assert "interrupted: vtgate check" in said and "Traceback" not in said
    assert not report.exists()  # complete or absent: here absent
    assert run.survivors() == []
    sleeper = int(pidfile.read_text())
    assert not psutil.pid_exists(sleeper) or psutil.Process(sleeper).status() == psutil.STATUS_ZOMBIE
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".report.json")]  # no temporary half-file


REMOTE_CHECK_SUITE = """\
[[gate]]
name = "remote"
kind = "band"
probe = {{ cmd = ["sh", "-c", "if [ -n \\"$ON_WORKER\\" ]; then echo $$ > {pidfile}; sleep 30; fi; echo '{{\\"n\\": 1}}'"] }}
bands = {{ n = [0, 5] }}
"""


@pytest.mark.parametrize("fallback", [False, True], ids=["exit-3", "fallback-local"])
def test_a_scheduler_killed_during_a_checks_probe_runs_ends_it_or_hands_them_to_this_machine(cluster_factory, tmp_path,
                                                                                              fallback):
    project = tmp_path / "project"
    project.mkdir()
    pidfile = tmp_path / "probe.pid"
    (project / "vtgate.toml").write_text(REMOTE_CHECK_SUITE.format(pidfile=pidfile))
    cluster = cluster_factory("check")
    cluster.start_worker("w1", extra_env={"ON_WORKER": "1"})
    cluster.wait_for_workers(1)
    report = tmp_path / "report.json"
    run = Watched([str(BIN / "vtgate"), "check", "--json", str(report), "--scheduler", cluster.address,
                   *(["--fallback", "local"] if fallback else [])], project, FAST_LOSS)
    run.wait_until(lambda: pidfile.exists() and pidfile.read_text().strip() != "", "the probe started on the worker")
    os.killpg(cluster.scheduler.pid, signal.SIGKILL)
    code, seconds = run.finish()
    said = run.text()
    print(f"vtgate check, scheduler kill -9{' (--fallback local)' if fallback else ''} -> exit {code} "
          f"after {seconds:.1f} s")
    assert f"the Dask cluster of the scheduler at {cluster.address} was lost mid-run" in said
    gate = json.loads(report.read_text())["gates"][0]  # the report is complete
    if fallback:
        assert code == 0, said
        assert gate["status"] == "green" and "(--fallback local)" in said
    else:
        assert code == 3, said
        assert gate["status"] == "error"
    assert run.survivors() == []


def _mutate_helpers() -> Any:
    spec = importlib.util.spec_from_file_location("dask_mutate_helpers", Path(__file__).with_name("test_dask_mutate.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_sigterm_to_vtgate_mutate_during_mutant_copies_exits_143_and_leaves_no_copy(cluster_factory, tmp_path):
    helpers = _mutate_helpers()
    project = helpers.mutant_project(tmp_path / "project")
    before = subprocess.run(["git", "-C", str(project), "status", "--porcelain"], capture_output=True, text=True,
                            check=True).stdout
    engine = (project / "src" / "mutfake" / "__init__.py").read_text()
    marks = tmp_path / "marks"
    marks.mkdir()
    scratch = tmp_path / "tmp"  # the client's temporary folder: its mutant copies live here
    scratch.mkdir()
    cluster = cluster_factory("mutate")
    cluster.start_worker("w1", extra_env={"MARKS_DIR": str(marks), "MARKS_SLEEP": "30"})
    cluster.wait_for_workers(1)
    run = Watched([str(BIN / "vtgate"), *helpers.MUTATE, "--no-cache", "--scheduler", cluster.address], project,
                  {"TMPDIR": str(scratch)})
    run.wait_until(lambda: any(marks.iterdir()), "a mutant being judged", seconds=600)
    run.process.send_signal(signal.SIGTERM)
    code, seconds = run.finish()
    said = run.text()
    print(f"vtgate mutate SIGTERM during mutant copies -> exit {code} after {seconds:.1f} s")
    assert code == 143, said
    assert "interrupted: vtgate mutate" in said and "Traceback" not in said
    assert not list(scratch.glob("vtgate-*")), list(scratch.iterdir())
    assert run.survivors() == []
    assert (project / "src" / "mutfake" / "__init__.py").read_text() == engine
    assert subprocess.run(["git", "-C", str(project), "status", "--porcelain"], capture_output=True, text=True,
                          check=True).stdout == before


def test_sigterm_to_vtengine_exits_143_naming_the_command(tmp_path):
    cache = tmp_path / "cache"
    run = Watched([str(BIN / "vtengine"), "generate", "--prompt", "hi", "--tokens", "1000"], tmp_path,
                  {"VT_CACHE_DIR": str(cache)})
    run.wait_until(lambda: cache.is_dir() and any(cache.glob("*.npz")), "loading the model")
    run.process.send_signal(signal.SIGTERM)
    code, seconds = run.finish()
    print(f"vtengine SIGTERM during generate -> exit {code} after {seconds:.1f} s")
    assert code == 143, run.text()
    assert "interrupted: vtengine generate" in run.text()
    assert run.survivors() == []


# ---- vtgate mutate --code: the scheduler lost mid-batch -----------------------------------------------

MUTANTS = ("mutate", "--code", "-j", "2", "--budget", "4", "--seed", "3", "--no-cache")


@pytest.mark.parametrize("fallback", [False, True], ids=["exit-3", "fallback-local"])
def test_a_scheduler_killed_mid_mutant_batch_ends_it_naming_it_or_judges_the_rest_here(cluster_factory, tmp_path,
                                                                                       fallback):
    helpers = _mutate_helpers()
    project = helpers.mutant_project(tmp_path / "project")
    before = subprocess.run(["git", "-C", str(project), "status", "--porcelain"], capture_output=True, text=True,
                            check=True).stdout
    if fallback:  # the verdicts to match
        local = helpers.run(project, *MUTANTS, "--json", "-", "-q")
        assert local.returncode in (0, 1), local.stderr
    marks = tmp_path / "marks"
    marks.mkdir()
    scratch = tmp_path / "tmp"  # the client's temporary folder: its mutant copies live here
    scratch.mkdir()
    cluster = cluster_factory("mutants-lost")
    cluster.start_worker("w1", extra_env={"MARKS_DIR": str(marks), "MARKS_SLEEP": "8"})
    cluster.wait_for_workers(1)
    report = tmp_path / "mutants.json"
    run = Watched([str(BIN / "vtgate"), *MUTANTS, "--json", str(report), "--scheduler", cluster.address,
                   *(["--fallback", "local"] if fallback else [])], project, {**FAST_LOSS, "TMPDIR": str(scratch)})
    run.wait_until(lambda: any(marks.iterdir()), "a mutant being judged on the worker", seconds=600)
    os.killpg(cluster.scheduler.pid, signal.SIGKILL)
    code, seconds = run.finish(within=240)
    said = run.text()
    print(f"vtgate mutate --code, scheduler kill -9{' (--fallback local)' if fallback else ''} -> exit {code} "
          f"after {seconds:.1f} s")
    assert f"the Dask cluster of the scheduler at {cluster.address} was lost mid-run" in said
    assert "Traceback" not in said
    written = json.loads(report.read_text())  # the report is complete
    if fallback:
        assert code == local.returncode, said
        assert "the remaining mutants are judged on this machine (--fallback local)" in said
        assert helpers.by_mutant(written) == helpers.by_mutant(json.loads(local.stdout))  # the same verdicts
    else:
        assert code == 3, said
        assert "Judged so far: " in said and "re-run the same command to resume" in said
        assert any(m["status"] == "error" for m in written["mutants"])
    assert run.survivors() == []
    assert not list(scratch.glob("vtgate-*")), list(scratch.iterdir())  # no copy left here
    copies = cluster.root / "cache-w1" / "mutants" / "copies"  # nor on the worker, once its run ends
    deadline = time.monotonic() + HANG
    while copies.exists() and any(copies.iterdir()):
        assert time.monotonic() < deadline, f"the worker left {list(copies.iterdir())}"
        time.sleep(0.5)
    assert subprocess.run(["git", "-C", str(project), "status", "--porcelain"], capture_output=True, text=True,
                          check=True).stdout == before


# ---- a worker process killed under a check's probe run or a mutant's runs: no orphan ------------------

ORPHAN_CHECK_SUITE = """\
[[gate]]
name = "remote"
kind = "band"
probe = {{ cmd = ["sh", "-c", "if [ -e {flag} ]; then sleep 60 & echo \\"$$ $!\\" > {pidfile}; wait; fi; echo '{{\\"n\\": 1}}'"] }}
bands = {{ n = [0, 5] }}
"""


def _worker_process(cluster: Any, name: str) -> psutil.Process:
    nanny = psutil.Process(cluster.workers[name].pid)
    return next(p for p in nanny.children() if "spawn_main" in " ".join(p.cmdline()))


def _alive(pid: int) -> bool:
    return psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE


def test_a_worker_killed_mid_probe_run_leaves_no_orphaned_probe(cluster_factory, tmp_path):
    """The probe runs in its own session, so it outlives the worker process killed under it; the
    restarted worker kills it before it runs the rescheduled probe (vtgate check's runs are noted in
    the worker's child ledger as vtbisect's judges are)."""
    project = tmp_path / "project"
    project.mkdir()
    flag, pidfile = tmp_path / "slow", tmp_path / "probe.pid"
    flag.touch()
    (project / "vtgate.toml").write_text(ORPHAN_CHECK_SUITE.format(flag=flag, pidfile=pidfile))
    cluster = cluster_factory("orphan-check", [("w1", "")])
    report = tmp_path / "report.json"
    run = Watched([str(BIN / "vtgate"), "check", "--json", str(report), "--scheduler", cluster.address], project, {})
    run.wait_until(lambda: pidfile.exists() and len(pidfile.read_text().split()) == 2, "the probe started on w1")
    orphans = [int(pid) for pid in pidfile.read_text().split()]  # the probe's shell and its sleeping child
    _worker_process(cluster, "w1").kill()  # the nanny starts a new worker process; the probe is orphaned
    flag.unlink()
    code, seconds = run.finish(within=240)
    said = run.text()
    print(f"vtgate check, worker kill -9 mid-probe -> exit {code} after {seconds:.1f} s")
    assert code == 0, said  # the run was rescheduled on the restarted worker
    assert json.loads(report.read_text())["gates"][0]["status"] == "green"
    assert [pid for pid in orphans if _alive(pid)] == []
    assert run.survivors() == []


ORPHAN_MARKS = """\
import os
import time
from pathlib import Path

if os.environ.get("MARKS_DIR"):
    (Path(os.environ["MARKS_DIR"]) / f"{os.getpid()}").touch()
    while Path(os.environ["MARKS_DIR"], "slow").exists():
        time.sleep(0.1)
"""


def test_a_worker_killed_mid_mutant_leaves_no_orphaned_probe(cluster_factory, tmp_path):
    """The mutant's probes are answered by a fork server (a callable probe), which ends with the pipe
    of the worker process that started it, taking its probe along; runs of a fresh process (a command
    probe) are noted in the child ledger and killed by the restarted worker, as the check test above
    shows. Either way: no probe of the dead worker outlives it, the mutant is judged again."""
    helpers = _mutate_helpers()
    project = helpers.mutant_project(tmp_path / "project")
    (project / "src" / "mutfake" / "_marks.py").write_text(ORPHAN_MARKS)  # on the worker: waits while flagged
    marks = tmp_path / "marks"
    marks.mkdir()
    (marks / "slow").touch()
    cluster = cluster_factory("orphan-mutant")
    cluster.start_worker("w1", extra_env={"MARKS_DIR": str(marks)})
    cluster.wait_for_workers(1)
    report = tmp_path / "mutants.json"
    run = Watched([str(BIN / "vtgate"), "mutate", "--code", "-j", "1", "--budget", "4", "--seed", "3", "--no-cache",
                   "--json", str(report), "--scheduler", cluster.address], project, {})
    run.wait_until(lambda: any(m.name != "slow" for m in marks.iterdir()), "a mutant's probe on w1", seconds=600)
    orphan = int(next(m for m in marks.iterdir() if m.name != "slow").name)
    _worker_process(cluster, "w1").kill()
    (marks / "slow").unlink()
    code, seconds = run.finish(within=240)
    said = run.text()
    print(f"vtgate mutate --code, worker kill -9 mid-mutant -> exit {code} after {seconds:.1f} s")
    assert code in (0, 1), said  # verdicts, the interrupted one judged again on the restarted worker
    assert all(m["status"] != "error" for m in json.loads(report.read_text())["mutants"]), said
    assert not _alive(orphan)
    assert run.survivors() == []


# ---- a real dropped network: the scheduler in its own network namespace, its link taken down ---------

def _netns_unavailable() -> str:
    if os.geteuid() != 0:
        return "needs root to make a network namespace"
    if shutil.which("ip") is None:
        return "needs the ip tool (iproute2) to make a network namespace"
    probe = f"vtprobe{os.getpid() % 100000}"
    done = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return f"cannot make a network namespace here: {done.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True, check=False)
    return ""


NETNS_UNAVAILABLE = _netns_unavailable()


@pytest.fixture
def namespaced_cluster(kit, tmp_path):
    """A scheduler in a network namespace of its own, reached over a veth pair (10.251.N.1 here, .2
    there: addresses of this test's own namespaces only); one worker in this namespace. Yields
    (cluster, the link's name on this side)."""
    tag = os.getpid() % 10000
    ns, here, there = f"vt25ns{tag}", f"vt25h{tag}", f"vt25n{tag}"
    subnet = f"10.251.{tag % 250}"

    def ip(*args: str) -> None:
        subprocess.run(["ip", *args], check=True, capture_output=True)

    for leftover in (["link", "del", here], ["netns", "del", ns]):  # of an earlier run killed mid-test
        subprocess.run(["ip", *leftover], capture_output=True, check=False)
    ip("netns", "add", ns)
    cluster = None
    try:
        ip("link", "add", here, "type", "veth", "peer", "name", there)
        ip("link", "set", there, "netns", ns)
        ip("addr", "add", f"{subnet}.1/30", "dev", here)
        ip("link", "set", here, "up")
        ip("netns", "exec", ns, "ip", "addr", "add", f"{subnet}.2/30", "dev", there)
        ip("netns", "exec", ns, "ip", "link", "set", there, "up")
        ip("netns", "exec", ns, "ip", "link", "set", "lo", "up")
        port = kit.free_port()
        root = tmp_path / "netns-cluster"
        root.mkdir()
        log = (root / "scheduler.log").open("wb")
        scheduler = subprocess.Popen(["ip", "netns", "exec", ns, *kit.dask_cli(), "scheduler", "--host", f"{subnet}.2",
                                      "--port", str(port), "--no-dashboard"], stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        cluster = kit.Cluster(f"tcp://{subnet}.2:{port}", root, scheduler)
        deadline = time.monotonic() + 120
        while True:
            with socket.socket() as sock:
                sock.settimeout(1)
                if sock.connect_ex((f"{subnet}.2", port)) == 0:
                    break
            assert scheduler.poll() is None and time.monotonic() < deadline, (root / "scheduler.log").read_text()
            time.sleep(0.2)
        cluster.start_worker("w1")
        cluster.wait_for_workers(1)
        yield cluster, here
    finally:
        if cluster is not None:
            cluster.stop()
        subprocess.run(["ip", "link", "del", here], capture_output=True, check=False)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)


@pytest.mark.skipif(bool(NETNS_UNAVAILABLE), reason=NETNS_UNAVAILABLE or "-")
def test_a_dropped_network_link_to_the_scheduler_ends_the_run_after_the_lost_timeout(kit, namespaced_cluster,
                                                                                     tmp_path):
    """A real dropped connection: the link to the scheduler's namespace is taken down mid-run. No
    connection is closed (TCP keeps retrying); nothing answers; after VT_DASK_LOST_TIMEOUT, exit 3."""
    cluster, link = namespaced_cluster
    repo = tmp_path / "repo"
    kit.make_repo(repo)
    before = snapshot(repo)
    cache = tmp_path / "cache"
    run = bisect_run(kit, repo, cache, cluster.address, {**FAST_LOSS, "VT_DASK_LOST_TIMEOUT": "5",
                                                         "VT_TEST_SLEEP": "1"})
    run.wait_until(lambda: "step 2 " in run.text(), "two steps judged on the cluster")
    subprocess.run(["ip", "link", "set", link, "down"], check=True, capture_output=True)
    code, seconds = run.finish()
    said = run.text()
    print(f"network link to the scheduler down -> exit {code} after {seconds:.1f} s")
    assert code == 3, said
    assert f"the Dask cluster of the scheduler at {cluster.address} was lost mid-run" in said
    assert "Judged so far: " in said
    assert_clean_bisection(kit, repo, cache, before, run)
    assert len(cached_verdicts(cache)) >= 2
