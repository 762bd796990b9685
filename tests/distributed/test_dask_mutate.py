"""vtgate mutate --code on a real Dask cluster (a ``dask scheduler`` and two ``dask worker`` processes on
localhost): every mutant gets the local executor's verdict, mutant by mutant, with one worker killed
in the middle of a judgement; the verdicts land in the code-mutant cache a later local run reads; and
a gate's own ``resources`` send its runs only to the worker that offers them."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

MUTFAKE = Path(__file__).resolve().parents[1] / "mutate" / "fake" / "mutfake"
FAKE = Path(__file__).resolve().parents[1] / "check" / "fake" / "fakeengine"
VTGATE = str(Path(sys.executable).parent / "vtgate")

MUTANT_SUITE = """\
[suite]
pythonpath = ["src"]
source_tree = "src/mutfake"
timeout = 60

[mutate.code]
paths = ["src/mutfake"]
exclude = ["src/mutfake/_marks.py"]

[[gate]]
name = "strict-hi"
kind = "golden"
mode = "strict"
probe = "mutfake:generate"
args = { prompt = "hi", tokens = 12 }

[[gate]]
name = "dispatch-vs-scalar"
kind = "bitident"
probe = "mutfake:cases"
configs = { dispatch = { args = { impl = "dispatch" } }, scalar = { args = { impl = "scalar" } } }
"""

# Imported first by the engine: on a worker (MARKS_DIR set in its environment only), records which
# mutant copy it is judging (the copy's folder name holds the mutant's digest), then takes its time.
MARKS = """\
import os
import time
from pathlib import Path

if os.environ.get("MARKS_DIR"):
    _copy = Path(__file__).resolve().parents[2].name
    (Path(os.environ["MARKS_DIR"]) / f"{_copy}.{os.environ.get('WORKER_TAG', 'local')}.{os.getpid()}").touch()
    time.sleep(float(os.environ.get("MARKS_SLEEP", "0")))
"""


def run(project: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([VTGATE, *args], cwd=project, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "NO_COLOR": "1", **(env or {})}, stdin=subprocess.DEVNULL, check=False)


def git(project: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)


def mutant_project(path: Path) -> Path:
    """The mutfake engine with its marks module, the suite blessed, all committed but one uncommitted edit
    (the base tree travels as it is on disk, not as HEAD)."""
    shutil.copytree(MUTFAKE, path / "src" / "mutfake", ignore=shutil.ignore_patterns("__pycache__"))
    (path / "src" / "mutfake" / "_marks.py").write_text(MARKS)
    engine = path / "src" / "mutfake" / "__init__.py"
    engine.write_text(engine.read_text().replace(
        "from pathlib import Path\n", "from pathlib import Path\n\nfrom mutfake import _marks  # noqa: F401\n", 1))
    (path / ".gitignore").write_text("__pycache__/\n")
    (path / "vtgate.toml").write_text(MUTANT_SUITE)
    git(path, "init", "-q")
    git(path, "config", "user.email", "t@example.com")
    git(path, "config", "user.name", "t")
    blessed = run(path, "bless", "strict-hi", "--reason", "first measurement")
    assert blessed.returncode == 0, blessed.stderr
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "engine and suite")
    engine.write_text(engine.read_text() + "\n\ndef uncommitted(x):\n    return x + 1\n")
    return path


def by_mutant(report: dict[str, Any]) -> dict[str, tuple[str, str | None, tuple[str, ...]]]:
    return {m["id"]: (m["status"], m["killed_by"], tuple(m["gates_run"])) for m in report["mutants"]}


MUTATE = ("mutate", "--code", "--json", "-", "-q", "-j", "2", "--budget", "6", "--seed", "3")


@pytest.mark.slow  # a real cluster judging real mutants: .ci/run runs it with -m slow
def test_a_mutant_batch_on_two_workers_one_killed_has_the_local_verdicts_and_fills_the_cache(
        cluster_factory, tmp_path):
    project = mutant_project(tmp_path / "project")
    local = run(project, *MUTATE, "--no-cache")
    assert local.returncode in (0, 1), local.stderr
    local_report = json.loads(local.stdout)
    assert len(local_report["mutants"]) == 6 and any(m["gates_run"] for m in local_report["mutants"])

    marks = tmp_path / "marks"
    marks.mkdir()
    cluster = cluster_factory("mutants")
    for name in ("w1", "w2"):
        cluster.start_worker(name, extra_env={"MARKS_DIR": str(marks), "MARKS_SLEEP": "2"})
    cluster.wait_for_workers(2)
    client = subprocess.Popen([VTGATE, *MUTATE, "--scheduler", cluster.address], cwd=project,
                              env={**os.environ, "NO_COLOR": "1"}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 600
    while not list(marks.glob("*.w1.*")):  # w1 is judging a mutant: kill it in the middle
        assert client.poll() is None and time.monotonic() < deadline, client.communicate()
        time.sleep(0.1)
    killed_digest = next(marks.glob("*.w1.*")).name.split("-")[1]
    cluster.kill("w1")
    stdout, stderr = client.communicate(timeout=900)
    assert client.returncode == local.returncode, stderr
    remote_report = json.loads(stdout)
    assert by_mutant(remote_report) == by_mutant(local_report)  # mutant by mutant: status, killer, gates run

    judged_by = {m["digest"]: m["judged_by"] for m in remote_report["mutants"] if m["gates_run"]}
    assert judged_by and all(" w1 on " in who or " w2 on " in who for who in judged_by.values())
    assert " w2 on " in judged_by[killed_digest]  # the interrupted judgement is the surviving worker's
    started: dict[str, set[str]] = {}
    for mark in marks.iterdir():
        copy, worker, _ = mark.name.split(".")
        started.setdefault(copy.split("-")[1], set()).add(worker)
    assert started[killed_digest] == {"w1", "w2"}
    assert sum(1 for workers in started.values() if len(workers) > 1) <= 1  # at most one judgement repeated

    again = run(project, *MUTATE)  # the cluster's verdicts are in the cache a local run reads
    assert again.returncode == local.returncode, again.stderr
    again_report = json.loads(again.stdout)
    assert again_report["evaluated"] == 0 and all(m["cached"] for m in again_report["mutants"])
    assert by_mutant(again_report) == by_mutant(local_report)
    assert not list(marks.glob("*.local.*"))  # nothing was judged on this machine


def test_a_base_tree_over_the_bundle_limit_is_exit_2_before_any_cluster(tmp_path):
    project = mutant_project(tmp_path / "project")
    done = run(project, *MUTATE, "--scheduler", "tcp://127.0.0.1:9", env={"VT_DASK_BUNDLE_LIMIT_MB": "0.001"})
    assert done.returncode == 2, done.stdout + done.stderr
    said = " ".join(done.stderr.split())
    assert "the tree under test" in said and "over the limit of 0.001 MB" in said and "VT_DASK_BUNDLE_LIMIT_MB" in said


CHECK_SUITE = """\
[suite]
pythonpath = ["src"]
source_tree = "src/fakeengine"
timeout = 60

[[gate]]
name = "on-gpu"
kind = "golden"
probe = "fakeengine:generate"
args = { prompt = "gpu", tokens = 6 }
resources = { GPU = 1 }

[[gate]]
name = "anywhere"
kind = "golden"
probe = "fakeengine:generate"
args = { prompt = "cpu", tokens = 6 }
"""


@pytest.mark.slow
def test_a_gates_own_resources_send_its_runs_only_to_the_worker_offering_them(cluster_factory, tmp_path):
    project = tmp_path / "project"
    shutil.copytree(FAKE, project / "src" / "fakeengine", ignore=shutil.ignore_patterns("__pycache__"))
    (project / "vtgate.toml").write_text(CHECK_SUITE)
    blessed = run(project, "bless", "on-gpu", "anywhere", "--reason", "first measurement")
    assert blessed.returncode == 0, blessed.stderr
    cluster = cluster_factory("gate-resources")
    cluster.start_worker("gpu", "GPU=1", extra_env={"FAKE_LOG": str(tmp_path / "gpu-runs.log")})
    cluster.start_worker("cpu", extra_env={"FAKE_LOG": str(tmp_path / "cpu-runs.log")})
    cluster.wait_for_workers(2)
    for _ in range(3):  # the scheduler may place "anywhere" on either worker; "on-gpu" only on gpu
        done = run(project, "check", "--scheduler", cluster.address, "-j", "2")
        assert done.returncode == 0, done.stdout + done.stderr
    cpu_runs = (tmp_path / "cpu-runs.log").read_text() if (tmp_path / "cpu-runs.log").exists() else ""
    gpu_runs = (tmp_path / "gpu-runs.log").read_text()
    assert gpu_runs.count('"prompt":"gpu"') == 3 and '"prompt":"gpu"' not in cpu_runs
    assert (gpu_runs + cpu_runs).count('"prompt":"cpu"') == 3
    lone = cluster_factory("cpu-only", [("cpu", "")])
    done = run(project, "check", "--scheduler", lone.address)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "offers GPU=1, which gate on-gpu needs" in " ".join(done.stderr.split())


def test_a_gate_resource_that_is_not_a_positive_number_is_a_configuration_error(tmp_path):
    project = tmp_path / "project"
    shutil.copytree(FAKE, project / "src" / "fakeengine", ignore=shutil.ignore_patterns("__pycache__"))
    (project / "vtgate.toml").write_text(CHECK_SUITE.replace("resources = { GPU = 1 }", 'resources = { GPU = "one" }'))
    done = run(project, "check")
    assert done.returncode == 2
    assert "gate 'on-gpu': resources: GPU = 'one' must be a positive number" in " ".join(done.stderr.split())


@pytest.mark.slow
def test_ctrl_c_cancels_the_mutants_on_the_cluster_and_leaves_no_copy(cluster_factory, tmp_path):
    project = mutant_project(tmp_path / "project")
    marks = tmp_path / "marks"
    marks.mkdir()
    scratch = tmp_path / "tmp"  # the client's temporary folder: its mutant copies live here
    scratch.mkdir()
    cluster = cluster_factory("ctrl-c")
    for name in ("w1", "w2"):
        cluster.start_worker(name, extra_env={"MARKS_DIR": str(marks), "MARKS_SLEEP": "30"})
    cluster.wait_for_workers(2)
    client = subprocess.Popen([VTGATE, *MUTATE, "--no-cache", "--scheduler", cluster.address], cwd=project,
                              env={**os.environ, "NO_COLOR": "1", "TMPDIR": str(scratch)}, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 600
    while not list(marks.iterdir()):  # a worker is judging a mutant
        assert client.poll() is None and time.monotonic() < deadline, client.communicate()
        time.sleep(0.1)
    client.send_signal(signal.SIGINT)
    _, stderr = client.communicate(timeout=120)
    assert client.returncode == 130, stderr
    assert not list(scratch.glob("vtgate-*")), list(scratch.iterdir())  # no copy, no archive left behind
    deadline = time.monotonic() + 60
    while cluster.tasks_on_scheduler():  # the client's futures were cancelled: the scheduler forgets them
        assert time.monotonic() < deadline, "the scheduler still holds the interrupted run's tasks"
        time.sleep(0.5)


@pytest.mark.slow
def test_a_mutant_batch_on_a_local_cluster_has_the_local_verdicts_and_leaves_nothing_behind(tmp_path):
    project = mutant_project(tmp_path / "project")
    scratch = tmp_path / "tmp"  # the client's temporary folder: copies, archives and the workers' cache
    scratch.mkdir()
    args = ("mutate", "--code", "--json", "-", "-q", "-j", "2", "--budget", "4", "--seed", "3", "--no-cache")
    local = run(project, *args)
    remote = run(project, *args, "--executor", "dask", env={"TMPDIR": str(scratch)})
    assert remote.returncode == local.returncode, remote.stderr
    remote_report = json.loads(remote.stdout)
    assert by_mutant(remote_report) == by_mutant(json.loads(local.stdout))
    judged = [m["judged_by"] for m in remote_report["mutants"] if m["gates_run"]]
    assert judged and all(who and who.startswith("worker ") for who in judged)
    assert not list(scratch.glob("vtgate-*")), list(scratch.iterdir())
