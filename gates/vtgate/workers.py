"""Persistent probe workers (``probe = { cmd = [...], worker = true }``): one long-lived process per
(command, environment, root) answers many runs, so an engine that takes seconds to load a model
loads it once per check instead of once per run. The protocol is line-delimited JSON: for each run
vtgate writes ``{"args": {...}}`` and a newline to the worker's stdin and reads one line from its
stdout, the observation (a JSON object), or ``{"vtgate_error": "message"}`` for a run that failed
while the worker lives on. The worker's stderr is its log (the last lines go with any error); a
timeout kills the worker's whole tree and the next run starts a fresh one; a worker that dies before
answering is restarted and the run asked again once; closing stdin asks a
worker to exit (``vtgate.probe.serve`` implements the worker side for a Python function)."""

from __future__ import annotations

import collections
import contextlib
import json
import queue
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from vtgate.proctree import ChildProcesses, kill_tree

STDERR_LINES = 20
CLOSE_WAIT_SECONDS = 5.0

WorkerKey = tuple[tuple[str, ...], tuple[tuple[str, str], ...], str]


class _Worker:
    """One worker process: a thread reads its stdout lines into a queue, another keeps its last
    stderr lines; ``lock`` makes its runs one at a time."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self.lock = threading.Lock()
        threading.Thread(target=self._pump, args=(process.stdout,), daemon=True).start()
        threading.Thread(target=self._drain, args=(process.stderr,), daemon=True).start()

    def _pump(self, stream: IO[bytes] | None) -> None:
        assert stream is not None
        for line in iter(stream.readline, b""):
            self.lines.put(line)
        self.lines.put(None)  # end of output: the worker exited

    def _drain(self, stream: IO[bytes] | None) -> None:
        assert stream is not None
        for line in iter(stream.readline, b""):
            self.stderr.append(line.decode("utf-8", "replace").rstrip("\n"))

    @property
    def tail(self) -> str:
        return "\n".join(self.stderr)


class Workers:
    """The live workers of one caller (a ``SharedRuns`` pool); ``close`` ends them all."""

    def __init__(self, children: ChildProcesses) -> None:
        self.children = children
        self._workers: dict[WorkerKey, list[_Worker]] = {}
        self._lock = threading.Lock()
        self.started = 0

    def ask(self, argv: Sequence[str], env: Mapping[str, str], root: Path, args_json: str,
            timeout: float, request: bytes | None = None,
            spare: bool = False) -> tuple[Mapping[str, Any] | None, str | None, str, bool]:
        """One run: (observation, error, stderr tail, timed_out). ``request`` replaces the
        ``{"args": ...}`` line (the fork server of ``vtgate.forkserver`` takes probe, args and env);
        ``spare``: when every process of this key is busy, start another instead of waiting. A worker
        that dies before answering (a crash, not a timeout) is restarted and the run asked again, once."""
        key: WorkerKey = (tuple(argv), tuple(sorted(env.items())), str(root))
        line = request if request is not None else b'{"args": ' + args_json.encode("utf-8") + b"}"
        for attempt in (1, 2):
            with self._lock:
                pool = self._workers.setdefault(key, [])
                pool[:] = [w for w in pool if w.process.poll() is None]
                worker = next((w for w in pool if w.lock.acquire(blocking=False)), None)
                if worker is None and (spare or not pool):
                    worker = _Worker(self.children.start(argv, cwd=root, env=env, stdin=True))
                    worker.lock.acquire()
                    pool.append(worker)
                    self.started += 1
            if worker is None:
                worker = pool[0]
                worker.lock.acquire()
            try:
                observation, error, tail, timed_out, crashed = self._ask(key, worker, line, timeout)
            finally:
                worker.lock.release()
            if not crashed:
                break
            if attempt == 2:
                error = f"{error} (twice: it was restarted and the run asked again once)"
        return observation, error, tail, timed_out

    def _ask(self, key: WorkerKey, worker: _Worker, request: bytes,
             timeout: float) -> tuple[Mapping[str, Any] | None, str | None, str, bool, bool]:
        """One request to one worker: (observation, error, stderr tail, timed_out, crashed)."""
        assert worker.process.stdin is not None
        with contextlib.suppress(OSError):  # it exited: the end of its output says so below
            worker.process.stdin.write(request + b"\n")
            worker.process.stdin.flush()
        deadline = time.monotonic() + timeout
        try:
            line = worker.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            self._forget(key, worker, kill=True)
            return None, "timeout", worker.tail, True, False
        if line is None:
            status = worker.process.wait()
            self._forget(key, worker)
            how = f"was killed by signal {-status}" if status < 0 else f"exited with status {status}"
            return None, f"worker {how} before answering", worker.tail, False, True
        text = line.decode("utf-8", "replace").strip()
        try:
            reply = json.loads(text)
        except json.JSONDecodeError as error:
            self._forget(key, worker, kill=True)  # its stdout is out of step with the requests: never trust it again
            return None, (f"worker answered a line that is not JSON ({error.msg}); it starts {text[:80]!r} "
                          "(a worker prints exactly one JSON line per request on stdout, logs on stderr); "
                          "the worker was stopped"), worker.tail, False, False
        if not isinstance(reply, dict):
            self._forget(key, worker, kill=True)
            return None, f"worker answered JSON {type(reply).__name__}, not an object", worker.tail, False, False
        if "vtgate_error" in reply:
            return None, f"worker reported: {reply['vtgate_error']}", worker.tail, False, False
        return reply, None, worker.tail, False, False

    def _forget(self, key: WorkerKey, worker: _Worker, kill: bool = False) -> None:
        with self._lock:
            pool = self._workers.get(key, [])
            if worker in pool:
                pool.remove(worker)
        if kill:
            kill_tree(worker.process.pid)
        self.children.wait(worker.process, CLOSE_WAIT_SECONDS)

    def close(self, root: Path | None = None) -> None:
        """Close every worker's stdin (the signal to exit), then wait a little and kill what is left;
        with ``root``, only the workers of that root (a mutated copy about to be removed)."""
        with self._lock:
            keys = [key for key in self._workers if root is None or key[2] == str(root)]
            workers = [worker for key in keys for worker in self._workers.pop(key)]
        for worker in workers:
            if worker.process.stdin is not None:
                with contextlib.suppress(OSError):
                    worker.process.stdin.close()
        for worker in workers:
            self.children.wait(worker.process, CLOSE_WAIT_SECONDS)
