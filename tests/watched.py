"""A command started in the background whose descendants are sampled while it runs, so a test can
check that none of them outlived it (signal and fault tests: tests/test_signal_phases.py,
tests/distributed/test_faults.py)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

HANG = 60.0  # seconds: still running this long after a signal or a fault is a hang (a bound, not a speed claim)


class Watched:
    """``argv`` run in ``cwd`` with ``env`` over the environment, output to a file beside ``cwd``.
    ``hook_dir`` goes first on PYTHONPATH (a sitecustomize that holds an operation); ``hold`` is that
    hook's spec, passed as VT_TEST_HOLD with ``hold_seconds``."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str], hook_dir: Path | None = None,
                 hold: dict[str, object] | None = None, hold_seconds: float = 120.0) -> None:
        self.out = cwd.parent / f"out-{time.monotonic_ns()}.txt"
        self._log = self.out.open("wb")
        full = {**os.environ, "NO_COLOR": "1", **env}
        if hook_dir is not None:
            full["PYTHONPATH"] = os.pathsep.join(p for p in (str(hook_dir), full.get("PYTHONPATH", "")) if p)
        if hold is not None:
            full["VT_TEST_HOLD"] = json.dumps({"seconds": hold_seconds, **hold})
        self.process = subprocess.Popen(argv, cwd=cwd, env=full, stdout=self._log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL)
        self.seen: dict[int, float] = {}  # pid -> create time, of every descendant sampled

    def sample(self) -> None:
        with contextlib.suppress(psutil.Error):
            for child in psutil.Process(self.process.pid).children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    self.seen[child.pid] = child.create_time()

    def wait_until(self, condition: Callable[[], bool], what: str, seconds: float = 300) -> None:
        deadline = time.monotonic() + seconds
        while not condition():
            self.sample()
            assert self.process.poll() is None, f"exited before {what}: {self.text()}"
            assert time.monotonic() < deadline, f"{what} never happened: {self.text()}"
            time.sleep(0.05)
        self.sample()

    def finish(self, within: float = HANG) -> tuple[int, float]:
        """Wait for the exit (a hang fails the test, and the process is killed); (code, seconds)."""
        start = time.monotonic()
        try:
            code = self.process.wait(timeout=within)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            pytest.fail(f"still running {within:g} s after the signal or fault: {self.text()}")
        self._log.close()
        return code, time.monotonic() - start

    def text(self) -> str:
        return " ".join(self.out.read_text(errors="replace").split())

    def survivors(self) -> list[str]:
        """Descendants seen during the run that still run (the same process, not a reused pid)."""
        deadline = time.monotonic() + 5  # killed trees are reaped by init: give it a moment
        while True:
            alive = []
            for pid, created in self.seen.items():
                with contextlib.suppress(psutil.Error):
                    process = psutil.Process(pid)
                    if process.create_time() == created and process.status() != psutil.STATUS_ZOMBIE:
                        alive.append(f"{pid} {' '.join(process.cmdline())}")
            if not alive or time.monotonic() > deadline:
                return alive
            time.sleep(0.2)
