"""vtgate check on a real Dask cluster (a ``dask scheduler`` and two ``dask worker`` processes on
localhost): every gate's status is the local executor's, green and red, with the caller's knobs
reaching the probes on the workers as they reach local ones."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

FAKE = Path(__file__).resolve().parents[1] / "check" / "fake" / "fakeengine"
VTGATE = str(Path(sys.executable).parent / "vtgate")
SUITE = """\
[suite]
pythonpath = ["src"]
source_tree = "src/fakeengine"
timeout = 60
knob_prefixes = ["FAKE_"]

[[gate]]
name = "strict"
kind = "golden"
probe = "fakeengine:generate"
args = { prompt = "hello", tokens = 12 }

[[gate]]
name = "cache"
kind = "counters"
probe = "fakeengine:generate"
args = { prompt = "hello", tokens = 12 }
over = { FAKE_BUDGET = ["0", "1"] }
"""


def vtgate(project: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([VTGATE, *args], cwd=project, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "NO_COLOR": "1", **(env or {})}, stdin=subprocess.DEVNULL, check=False)


def statuses(project: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, str]]:
    done = vtgate(project, "check", "--json", "-", *args, env=env)
    report = json.loads(done.stdout)
    return done.returncode, {gate["name"]: gate["status"] for gate in report["gates"]}


def test_a_check_on_two_workers_gives_every_gate_the_local_status(cluster_factory, tmp_path):
    project = tmp_path / "project"
    shutil.copytree(FAKE, project / "src" / "fakeengine", ignore=shutil.ignore_patterns("__pycache__"))
    (project / "vtgate.toml").write_text(SUITE)
    blessed = vtgate(project, "bless", "strict", "cache", "--reason", "first measurement")
    assert blessed.returncode == 0, blessed.stderr
    cluster = cluster_factory("check")
    for name in ("w1", "w2"):  # each worker's probes log their runs (FAKE_LOG), the client's do not
        cluster.start_worker(name, extra_env={"FAKE_LOG": str(tmp_path / f"{name}-runs.log")})
    cluster.wait_for_workers(2)
    for env, expected in (({}, 0), ({"FAKE_FLIP": "3", "FAKE_EXTRA_MISS": "5"}, 1)):
        local = statuses(project, "-j", "2", env=env)
        remote = statuses(project, "-j", "2", "--scheduler", cluster.address, env=env)
        assert remote == local
        ran_on_workers = sum(len(log.read_text().splitlines()) for log in tmp_path.glob("w?-runs.log"))
        assert ran_on_workers == 3 * (1 + bool(env))  # strict's run and cache's two, on the workers
        assert local[0] == expected
    assert local[1] == {"strict": "red", "cache": "red"}  # the knobs reached the probes on the workers too


def _can_unshare_mounts() -> bool:
    done = subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False)
    return done.returncode == 0


@pytest.mark.skipif(not _can_unshare_mounts(), reason="needs `unshare -m` (a private mount namespace) to give a "
                    "worker a filesystem without the tree under test")
def test_a_worker_that_does_not_see_the_tree_is_refused_before_any_probe_runs(cluster_factory, tmp_path):
    """No shared filesystem: the worker runs in its own mount namespace with an empty tmpfs over the
    project, so it does not see the tree at the client's path. The check is refused (exit 2) naming
    the worker and the path, and no probe ran anywhere."""
    project = tmp_path / "project"
    shutil.copytree(FAKE, project / "src" / "fakeengine", ignore=shutil.ignore_patterns("__pycache__"))
    (project / "vtgate.toml").write_text(SUITE)
    blessed = vtgate(project, "bless", "strict", "cache", "--reason", "first measurement")
    assert blessed.returncode == 0, blessed.stderr
    cluster = cluster_factory("noshare")
    runs = tmp_path / "runs.log"
    argv = [str(Path(sys.executable).parent / "dask"), "worker", cluster.address, "--name", "island", "--nthreads", "1", "--no-dashboard",
            "--local-directory", str(tmp_path / "dask-island")]
    log = (tmp_path / "island.log").open("wb")
    cluster.workers["island"] = subprocess.Popen(
        ["unshare", "-m", "sh", "-c", 'mount -t tmpfs none "$0" && exec "$@"', str(project), *argv],
        env={**os.environ, "FAKE_LOG": str(runs)}, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        start_new_session=True)
    cluster.wait_for_workers(1)
    done = vtgate(project, "check", "--json", str(tmp_path / "report.json"), "--scheduler", cluster.address)
    said = " ".join(done.stderr.split())
    assert done.returncode == 2, said
    assert "worker island on " in said and f"has no {project / 'src' / 'fakeengine'}, the tree under test" in said
    assert not runs.exists()  # refused before any probe ran
