"""Child processes and their whole trees: the one place that starts a probe or a judge in its own
session (so a terminal's Ctrl-C reaches vtgate or vtbisect first, not the child) and the one killer
of a process tree, used on a timeout, on Ctrl-C/SIGTERM and on abort by vtgate check, bless, mutate
and vtbisect's judges."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

import psutil

KILL_WAIT_SECONDS = 5.0


def kill_tree(pid: int) -> None:
    """Kill ``pid`` and every descendant (psutil, then the process group ``pid`` leads, which
    catches a grandchild that double-forked away from the tree). Waits for the descendants only:
    ``pid`` itself is reaped by whoever owns its ``Popen``, which must see its real exit status."""
    try:
        descendants = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        descendants = []
    for member in descendants:
        with contextlib.suppress(psutil.Error):
            member.kill()
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)
    psutil.wait_procs(descendants, timeout=KILL_WAIT_SECONDS)


class ChildProcesses:
    """The children one caller has running. ``kill_all`` (an interruption) kills every tree and
    stops new ones: a child started afterwards is killed at once and reported as ``was_killed``."""

    def __init__(self) -> None:
        self._live: set[subprocess.Popen[bytes]] = set()
        self._killed: set[int] = set()
        self._stopping = False
        self._lock = threading.Lock()
        self.ledger: Path | None = None  # a folder noting each live child's pid (``sweep_orphans``)

    def start(self, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str],
              stdin: bool = False) -> subprocess.Popen[bytes]:
        """Start ``argv`` in its own session; ``stdin``: a pipe to write to (a persistent worker)."""
        process = subprocess.Popen(
            list(argv), cwd=cwd, env=dict(env), stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True,
        )
        if self.ledger is not None:
            note(self.ledger, process.pid)
        with self._lock:
            self._live.add(process)
            stopping = self._stopping
            if stopping:
                self._killed.add(process.pid)
        if stopping:
            kill_tree(process.pid)
        return process

    def communicate(self, process: subprocess.Popen[bytes], timeout: float | None) -> tuple[bytes, bytes, bool]:
        """Wait for ``process``; on timeout kill its whole tree. Returns (stdout, stderr, timed_out);
        the process is forgotten either way."""
        try:
            stdout, stderr = process.communicate(timeout=timeout)
            return stdout, stderr, False
        except subprocess.TimeoutExpired:
            kill_tree(process.pid)
            stdout, stderr = process.communicate()
            return stdout, stderr, True
        finally:
            with self._lock:
                self._live.discard(process)
            if self.ledger is not None:
                unnote(self.ledger, process.pid)

    def wait(self, process: subprocess.Popen[bytes], timeout: float) -> bool:
        """Wait for ``process`` whose pipes the caller reads itself; on timeout kill its whole tree.
        Returns whether it timed out; the process is forgotten either way."""
        try:
            process.wait(timeout=timeout)
            return False
        except subprocess.TimeoutExpired:
            kill_tree(process.pid)
            process.wait()
            return True
        finally:
            with self._lock:
                self._live.discard(process)
            if self.ledger is not None:
                unnote(self.ledger, process.pid)

    def was_killed(self, process: subprocess.Popen[bytes]) -> bool:
        """Killed by ``kill_all``: its output is not a result."""
        with self._lock:
            return process.pid in self._killed

    def kill_all(self) -> None:
        with self._lock:
            self._stopping = True
            live = list(self._live)
            self._killed.update(p.pid for p in live)
        for process in live:
            kill_tree(process.pid)

    def resume(self) -> None:
        """After ``kill_all``, let new children start again (a run that goes on elsewhere: a lost Dask
        scheduler's work continuing on this machine)."""
        with self._lock:
            self._stopping = False


# ---- children whose owner died: a Dask worker process killed mid-judgement -------------------------

def _created(pid: int) -> float | None:
    try:
        return psutil.Process(pid).create_time()
    except psutil.Error:
        return None


def note(ledger: Path, pid: int) -> None:
    """Note child ``pid`` of this process in ``ledger`` (a file named owner-child holding both start
    times, so a reused pid is never taken for them)."""
    ledger.mkdir(parents=True, exist_ok=True)
    (ledger / f"{os.getpid()}-{pid}").write_text(f"{_created(os.getpid())} {_created(pid)}\n")


def unnote(ledger: Path, pid: int) -> None:
    with contextlib.suppress(OSError):
        (ledger / f"{os.getpid()}-{pid}").unlink()


def sweep_orphans(ledger: Path) -> list[int]:
    """Kill the trees of noted children whose owner process is gone (killed with SIGKILL, so it could
    not kill them itself: they run in their own session and outlive it). Returns their pids."""
    killed: list[int] = []
    if not ledger.is_dir():
        return killed
    for entry in ledger.iterdir():
        owner_text, _, child_text = entry.name.partition("-")
        try:
            owner, child = int(owner_text), int(child_text)
            owner_created, child_created = entry.read_text().split()
        except (ValueError, OSError):
            continue
        if str(_created(owner)) == owner_created:
            continue  # its owner still runs and looks after it
        if str(_created(child)) == child_created:
            kill_tree(child)
            killed.append(child)
        with contextlib.suppress(OSError):
            entry.unlink()
    return killed
