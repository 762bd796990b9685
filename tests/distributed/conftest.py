"""A real Dask cluster on localhost for the dask executor's tests: a ``dask scheduler`` process and
``dask worker`` processes (each in its own session, so a test can kill one whole worker: nanny and
worker process), on ports chosen free, each worker with its own cache folder; and a real git history
whose committed judge script records which worker started judging which commit."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the dask executor needs the 'distributed' package (the test extra)")

VTBISECT = [sys.executable, "-m", "vtbisect"]
START_SECONDS = 120.0


def dask_cli() -> list[str]:
    script = Path(sys.executable).parent / "dask"
    return [str(script)] if script.exists() else [sys.executable, "-m", "dask"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Cluster:
    """A scheduler and named workers, all real processes; ``kill(name)`` SIGKILLs a worker's session."""

    address: str
    root: Path
    scheduler: subprocess.Popen[bytes]
    workers: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def start_worker(self, name: str, resources: str = "", preload: Path | None = None,
                     extra_env: dict[str, str] | None = None) -> None:
        cache = self.root / f"cache-{name}"
        argv = [*dask_cli(), "worker", self.address, "--name", name, "--nthreads", "1", "--nworkers", "1",
                "--no-dashboard", "--local-directory", str(self.root / f"dask-{name}")]
        if resources:
            argv += ["--resources", resources]
        if preload is not None:
            argv += ["--preload", str(preload)]
        env = {**os.environ, "VT_DASK_WORKER_CACHE": str(cache), "WORKER_TAG": name, **(extra_env or {})}
        log = (self.root / f"{name}.log").open("wb")
        self.workers[name] = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT,
                                              stdin=subprocess.DEVNULL, start_new_session=True)

    def wait_for_workers(self, count: int) -> None:
        from distributed import Client

        with Client(self.address, timeout=START_SECONDS) as client:
            client.wait_for_workers(count, timeout=START_SECONDS)

    def kill(self, name: str) -> None:
        process = self.workers.pop(name)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)

    def stop(self) -> None:
        for name in list(self.workers):
            self.kill(name)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.scheduler.pid, signal.SIGKILL)
        self.scheduler.wait(timeout=30)

    def tasks_on_scheduler(self) -> int:
        """How many tasks the scheduler has its workers processing."""
        from distributed import Client

        with Client(self.address, timeout=START_SECONDS) as client:
            return sum(len(keys) for keys in client.processing().values())


def start_cluster(root: Path, workers: Sequence[tuple[str, str]] = (), preload: Path | None = None) -> Cluster:
    """A scheduler on a free port and ``workers`` as (name, resources), all started and registered."""
    root.mkdir(parents=True, exist_ok=True)
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    log = (root / "scheduler.log").open("wb")
    scheduler = subprocess.Popen([*dask_cli(), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                  "--no-dashboard"], stdout=log, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, start_new_session=True)
    cluster = Cluster(address, root, scheduler)
    deadline = time.monotonic() + START_SECONDS
    while True:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                break
        if time.monotonic() > deadline or scheduler.poll() is not None:
            cluster.stop()
            raise RuntimeError(f"dask scheduler did not start: {(root / 'scheduler.log').read_text()}")
        time.sleep(0.2)
    for name, resources in workers:
        cluster.start_worker(name, resources, preload)
    if workers:
        cluster.wait_for_workers(len(workers))
    return cluster


@pytest.fixture
def cluster_factory(tmp_path: Path) -> Iterator[object]:
    started: list[Cluster] = []

    def make(name: str, workers: Sequence[tuple[str, str]] = (), preload: Path | None = None) -> Cluster:
        cluster = start_cluster(tmp_path / name, workers, preload)
        started.append(cluster)
        return cluster

    yield make
    for cluster in started:
        cluster.stop()


# ---- the repository under bisection ------------------------------------------------------------------

JUDGE = """#!/bin/sh
# Records who started judging this commit (for the tests), waits, then judges: bad from value 7 on.
if [ -n "$VT_TEST_MARKS" ]; then
    : > "$VT_TEST_MARKS/$(git rev-parse HEAD).${WORKER_TAG:-local}.$$"
fi
sleep "${VT_TEST_SLEEP:-0.2}"
test "$(cat value)" -lt 7
"""


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def make_repo(path: Path, commits: int = 12) -> list[str]:
    """A linear history: value 1..commits, the judge script committed with the first; value 7 breaks it."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "dev@example.com")
    git(path, "config", "user.name", "Dev")
    git(path, "config", "commit.gpgsign", "false")
    (path / "judge.sh").write_text(JUDGE)
    (path / "judge.sh").chmod(0o755)
    shas = []
    for value in range(1, commits + 1):
        (path / "value").write_text(f"{value}\n")
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", f"value {value}")
        shas.append(git(path, "rev-parse", "HEAD"))
    return shas


def vtbisect(repo: Path, args: Sequence[str], env: dict[str, str] | None = None,
             timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*VTBISECT, "run", *args], cwd=repo, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL, check=False)


class Kit:
    """The helpers above, for the test modules (which import nothing from conftest)."""

    VTBISECT = VTBISECT
    Cluster = Cluster
    dask_cli = staticmethod(dask_cli)
    free_port = staticmethod(free_port)
    git = staticmethod(git)
    make_repo = staticmethod(make_repo)
    vtbisect = staticmethod(vtbisect)


@pytest.fixture
def kit() -> type[Kit]:
    return Kit
