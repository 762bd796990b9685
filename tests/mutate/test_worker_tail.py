"""A failed run's stderr goes with its error whole: the worker writes its traceback to the stderr pipe
before it answers on stdout, and the thread that reads stderr may lag behind the answer under load
(a full test run under load once reported a fork-server crash as "(stderr empty)"). A real worker process writes its
log to stderr and then answers a failed run at once, while the reading thread starts half a second
late (the lag, made certain); the tail that comes back must end with the last line written."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from vtgate.run import workers as workers_module
from vtgate.run.proctree import ChildProcesses
from vtgate.run.workers import STDERR_LINES, Workers

WORKER = """
import json, sys
for request in sys.stdin:
    for i in range(300):  # about 20 kB: all of it fits in the pipe, so the answer is not held back
        sys.stderr.write(f"log line {i} " + "x" * 60 + "\\n")
    sys.stderr.write("RuntimeError: the last line\\n")
    sys.stderr.flush()
    print(json.dumps({"vtgate_exit": 1}), flush=True)
"""


def test_a_failed_runs_tail_ends_with_what_it_wrote_last(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    drain = workers_module._Worker._drain

    def late(self, stream):  # type: ignore[no-untyped-def]
        time.sleep(0.5)
        drain(self, stream)

    monkeypatch.setattr(workers_module._Worker, "_drain", late)
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    children = ChildProcesses()
    workers = Workers(children)
    try:
        for _ in range(3):
            observation, error, tail, timed_out = workers.ask([sys.executable, str(script)], {"PATH": "/usr/bin:/bin"},
                                                              tmp_path, "{}", 60.0)
            assert observation == {"vtgate_exit": 1} and error is None and not timed_out
            lines = tail.splitlines()
            assert lines[-1] == "RuntimeError: the last line" and len(lines) == STDERR_LINES, lines[-3:]
    finally:
        workers.close()
