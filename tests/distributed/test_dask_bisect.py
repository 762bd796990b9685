"""vtbisect on a real Dask cluster (a ``dask scheduler`` and ``dask worker`` processes on localhost):
the same verdicts as the local executor, who judged what, worker resources, a worker killed mid-run,
Ctrl-C, and the bad input the dask executor refuses (docs/distributed.md)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow


def verdicts(record: dict[str, Any]) -> dict[str, str]:
    """commit -> verdict of every step (rechecks agree with the first verdict in these histories)."""
    return {step["commit"]: step["verdict"] for step in record["steps"]}


def local_record(kit: Any, repo: Path, tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / "local.json"
    done = kit.vtbisect(repo, ["HEAD~11..HEAD", "-j", "2", "--no-cache", "--json", str(out), "--", "./judge.sh"])
    assert done.returncode == 1, done.stderr
    return json.loads(out.read_text())


def test_a_bisection_on_two_workers_has_the_local_verdicts_and_names_who_judged(kit, cluster_factory, tmp_path):
    repo = tmp_path / "repo"
    shas = kit.make_repo(repo)
    cluster = cluster_factory("two", [("w1", ""), ("w2", "")])
    out = tmp_path / "dask.json"
    done = kit.vtbisect(repo, ["HEAD~11..HEAD", "-j", "2", "--no-cache", "--scheduler", cluster.address,
                           "--json", str(out), "--", "./judge.sh"])
    assert done.returncode == 1, done.stdout + done.stderr
    record = json.loads(out.read_text())
    local = local_record(kit, repo, tmp_path)
    assert verdicts(record) == verdicts(local)
    assert [c["commit"] for c in record["culprits"]] == [shas[6]] == [c["commit"] for c in local["culprits"]]
    judged_by = [line for line in (done.stdout + done.stderr).splitlines() if "judged by worker" in line]
    assert len(judged_by) == record["judgements"]
    assert all(" w1 on " in line or " w2 on " in line for line in judged_by)
    assert "--scheduler" not in record["recipe"]["reproduce"]  # the evidence re-runs locally


def test_verdicts_stream_into_the_local_cache_so_a_local_rerun_judges_nothing(kit, cluster_factory, tmp_path):
    repo = tmp_path / "repo"
    kit.make_repo(repo)
    cluster = cluster_factory("cache", [("w1", "")])
    cache = tmp_path / "cache"
    first = kit.vtbisect(repo, ["HEAD~11..HEAD", "--cache-dir", str(cache), "--scheduler", cluster.address,
                            "--", "./judge.sh"])
    assert first.returncode == 1, first.stdout + first.stderr
    out = tmp_path / "again.json"
    again = kit.vtbisect(repo, ["HEAD~11..HEAD", "--cache-dir", str(cache), "--json", str(out), "--", "./judge.sh"])
    assert again.returncode == 1, again.stderr
    record = json.loads(out.read_text())
    assert record["judgements"] == 0 and all(step["cached"] for step in record["steps"])


def test_judgements_needing_a_gpu_run_only_on_the_worker_that_offers_one(kit, cluster_factory, tmp_path):
    repo = tmp_path / "repo"
    kit.make_repo(repo)
    cluster = cluster_factory("gpu", [("gpu-host", "GPU=1"), ("cpu-host", "")])
    done = kit.vtbisect(repo, ["HEAD~11..HEAD", "-j", "2", "--no-cache", "--scheduler", cluster.address,
                           "--resources", "GPU=1", "--", "./judge.sh"])
    assert done.returncode == 1, done.stdout + done.stderr
    judged_by = [line for line in (done.stdout + done.stderr).splitlines() if "judged by worker" in line]
    assert judged_by and all(" gpu-host on " in line for line in judged_by)
    missing = kit.vtbisect(repo, ["HEAD~11..HEAD", "--no-cache", "--scheduler", cluster.address,
                              "--resources", "TPU=2", "--", "./judge.sh"])
    assert missing.returncode == 2
    assert "no worker of the scheduler at " + cluster.address + " offers TPU=2" in " ".join(missing.stderr.split())


def test_a_worker_killed_mid_judgement_is_retried_elsewhere_and_never_a_verdict(kit, cluster_factory, tmp_path):
    repo = tmp_path / "repo"
    kit.make_repo(repo)
    local = local_record(kit, repo, tmp_path)
    cluster = cluster_factory("kill", [("w1", ""), ("w2", "")])
    marks = tmp_path / "marks"
    marks.mkdir()
    out = tmp_path / "dask.json"
    client = subprocess.Popen(
        [*kit.VTBISECT, "run", "HEAD~11..HEAD", "-j", "2", "--no-cache", "--scheduler", cluster.address, "--json",
         str(out), "--", "./judge.sh"], cwd=repo, env={**os.environ, "VT_TEST_MARKS": str(marks),
                                                       "VT_TEST_SLEEP": "3"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while not list(marks.glob("*.w1.*")):  # w1 has started judging a commit: kill it in the middle
        assert client.poll() is None and time.monotonic() < deadline, client.communicate()
        time.sleep(0.1)
    killed_commit = next(marks.glob("*.w1.*")).name.split(".")[0]
    cluster.kill("w1")
    stdout, stderr = client.communicate(timeout=600)
    assert client.returncode == 1, stdout.decode() + stderr.decode()
    record = json.loads(out.read_text())
    assert verdicts(record) == verdicts(local)
    # the killed judgement ran again on the surviving worker, and only that one was repeated
    assert list(marks.glob(f"{killed_commit}.w2.*"))
    started = [p.name.split(".")[0] for p in marks.iterdir()]
    assert len(started) - len(set(started)) <= 1 + sum(1 for s in record["steps"] if s["phase"] == "recheck")


def test_ctrl_c_cancels_the_cluster_work_and_leaves_no_worktree(kit, cluster_factory, tmp_path):
    repo = tmp_path / "repo"
    kit.make_repo(repo)
    cluster = cluster_factory("ctrl-c", [("w1", ""), ("w2", "")])
    marks = tmp_path / "marks"
    marks.mkdir()
    cache = tmp_path / "cache"
    client = subprocess.Popen(
        [*kit.VTBISECT, "run", "HEAD~11..HEAD", "-j", "2", "--cache-dir", str(cache), "--scheduler", cluster.address,
         "--", "./judge.sh"], cwd=repo, env={**os.environ, "VT_TEST_MARKS": str(marks), "VT_TEST_SLEEP": "30"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while not list(marks.iterdir()):
        assert client.poll() is None and time.monotonic() < deadline, client.communicate()
        time.sleep(0.1)
    client.send_signal(signal.SIGINT)
    _, stderr = client.communicate(timeout=120)
    assert client.returncode == 130, stderr.decode()
    assert not list((cache / "worktrees").iterdir())
    assert kit.git(repo, "worktree", "list").count("\n") == 0  # only the user's own checkout
    assert not list((cache / "verdicts").rglob("*.json"))  # nothing half-judged was recorded
    deadline = time.monotonic() + 60
    while cluster.tasks_on_scheduler():  # the client's futures were released: the scheduler forgets them
        assert time.monotonic() < deadline, "the scheduler still holds the interrupted run's tasks"
        time.sleep(0.5)


def test_a_git_bundle_sent_with_the_run_gives_the_workers_the_range(kit, cluster_factory, tmp_path):
    repo = tmp_path / "repo"
    kit.make_repo(repo)
    local = local_record(kit, repo, tmp_path)
    cluster = cluster_factory("bundle", [("w1", "")])
    out = tmp_path / "dask.json"
    done = kit.vtbisect(repo, ["HEAD~11..HEAD", "-j", "2", "--no-cache", "--scheduler", cluster.address, "--json",
                               str(out), "--", "./judge.sh"], env={"VT_DASK_SOURCE": "bundle"})
    assert done.returncode == 1, done.stdout + done.stderr
    assert verdicts(json.loads(out.read_text())) == verdicts(local)


def test_workers_that_cannot_reach_the_repository_are_exit_2_naming_the_worker(kit, cluster_factory, tmp_path):
    repo = tmp_path / "repo"
    kit.make_repo(repo, commits=3)
    cluster = cluster_factory("norepo", [("w1", "")])
    done = kit.vtbisect(repo, ["HEAD~2..HEAD", "--no-cache", "--scheduler", cluster.address, "--", "./judge.sh"],
                    env={"VT_DASK_SOURCE": str(tmp_path / "no-such-repository")})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "worker w1 on " in " ".join(done.stderr.split()) and "cannot get commit" in " ".join(done.stderr.split())


def test_a_worker_whose_python_lacks_vtgate_is_named(kit, cluster_factory, tmp_path):
    repo = tmp_path / "repo"
    kit.make_repo(repo, commits=3)
    preload = tmp_path / "hide_vtgate.py"
    preload.write_text("import sys\nfor name in ('vtgate', 'vtbisect'):\n    sys.modules[name] = None\n")
    cluster = cluster_factory("novtgate", [("bare", "")], preload=preload)
    done = kit.vtbisect(repo, ["HEAD~2..HEAD", "--scheduler", cluster.address, "--", "./judge.sh"])
    assert done.returncode == 2, done.stdout + done.stderr
    assert "cannot run vtgate: its Python cannot import it" in " ".join(done.stderr.split()) and cluster.address in " ".join(done.stderr.split())


def test_a_worker_with_another_vtgate_version_is_refused_naming_both(kit, cluster_factory, tmp_path):
    import vtgate

    repo = tmp_path / "repo"
    kit.make_repo(repo, commits=3)
    preload = tmp_path / "old_vtgate.py"
    preload.write_text("import vtgate\nvtgate.__version__ = '0.0.1-old'\n")
    cluster = cluster_factory("oldvtgate", [("old", "")], preload=preload)
    done = kit.vtbisect(repo, ["HEAD~2..HEAD", "--scheduler", cluster.address, "--", "./judge.sh"])
    assert done.returncode == 2, done.stdout + done.stderr
    assert ("worker old on " in " ".join(done.stderr.split()) and "runs vtgate 0.0.1-old" in " ".join(done.stderr.split())
            and f"this client runs vtgate {vtgate.__version__}" in " ".join(done.stderr.split()))


def test_ctrl_c_on_a_local_cluster_removes_its_worktrees_with_it(kit, tmp_path):
    repo = tmp_path / "repo"
    kit.make_repo(repo)
    marks = tmp_path / "marks"
    marks.mkdir()
    cache = tmp_path / "cache"
    client = subprocess.Popen(
        [*kit.VTBISECT, "run", "HEAD~11..HEAD", "-j", "2", "--cache-dir", str(cache), "--executor", "dask",
         "--", "./judge.sh"], cwd=repo, env={**os.environ, "VT_TEST_MARKS": str(marks), "VT_TEST_SLEEP": "30"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while not list(marks.iterdir()):  # a LocalCluster worker is judging in its worktree
        assert client.poll() is None and time.monotonic() < deadline, client.communicate()
        time.sleep(0.1)
    assert list((cache / "dask-local" / "checkouts").rglob("value"))
    client.send_signal(signal.SIGINT)
    _, stderr = client.communicate(timeout=120)
    assert client.returncode == 130, stderr.decode()
    assert not (cache / "dask-local" / "checkouts").exists()
    assert not list((cache / "worktrees").iterdir())
    assert kit.git(repo, "worktree", "list").count("\n") == 0
