"""Persistent probe workers (``probe = { cmd = [...], worker = true }``): one long-lived process per
(command, environment, root) answers many runs, so an engine that takes seconds to load a model
loads it once per check instead of once per run. The protocol is line-delimited JSON: for each run
vtgate writes ``{"args": {...}}`` and a newline to the worker's stdin and reads one line from its
stdout, the observation (a JSON object), or ``{"vtgate_error": "message"}`` for a run that failed
while the worker lives on. The worker's stderr is its log (the last lines go with any error); a
timeout kills the worker's whole tree and the next run starts a fresh one; a worker that dies before
answering is restarted and the run asked again once; closing stdin asks a
worker to exit (``vtgate.probe.serve`` implements the worker side for a Python function).

The fork servers of ``vtgate.run.forkserver`` are not started as fresh interpreters but forked by a
*zygote* (one per interpreter and server environment but ``PYTHONPATH``, started on first use), which
has the suite's ``[suite] preload`` (default NumPy) imported already; the forked server is driven exactly like a started one (its pipes, its
own session, a whole-tree kill on timeout). Where the zygote cannot start (no ``os.fork``, no Unix
sockets) servers start as fresh interpreters."""

from __future__ import annotations

import collections
import contextlib
import json
import os
import queue
import select
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any, cast

from vtgate.run.proctree import ChildProcesses, kill_tree

STDERR_LINES = 20
CLOSE_WAIT_SECONDS = 5.0

WorkerKey = tuple[tuple[str, ...], tuple[tuple[str, str], ...], str]
ZygoteKey = tuple[str, tuple[tuple[str, str], ...]]
ZYGOTE_READY_SECONDS = 120.0
FORKSERVER = ("-m", "vtgate.run.forkserver")


STATUS_GRACE_SECONDS = 5.0  # how long an exited server's status may take to come from its zygote


class ForkedServer:
    """A fork server forked by a zygote, driven like the ``subprocess.Popen`` of a started one: its
    pipes, ``pid``, ``poll`` and ``wait``. The zygote reaps it and writes its exit status to
    ``status_file``; were the zygote killed first, or its status not written within
    ``STATUS_GRACE_SECONDS`` of the server's end, the server's status is reported as -9."""

    def __init__(self, pid: int, zygote_pid: int, status_file: Path, stdin: int, stdout: int, stderr: int) -> None:
        self.pid = pid
        self.zygote_pid = zygote_pid
        self.args = ["vtgate.run.forkserver", str(pid)]
        self.status_file = status_file
        self.stdin: IO[bytes] | None = os.fdopen(stdin, "wb")
        self.stdout: IO[bytes] | None = os.fdopen(stdout, "rb")
        self.stderr: IO[bytes] | None = os.fdopen(stderr, "rb")
        self.returncode: int | None = None
        self._ended: float | None = None  # when it was first seen no longer running

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                self.returncode = int(self.status_file.read_text())
            except (OSError, ValueError):
                if _state(self.pid) == "running":
                    return None
                # exited: a live zygote reaps it and writes its status within moments; one that has not
                # after STATUS_GRACE_SECONDS never will (a wait on it must end), so it counts as killed
                if self._ended is None:
                    self._ended = time.monotonic()
                if _state(self.zygote_pid) == "running" and time.monotonic() - self._ended < STATUS_GRACE_SECONDS:
                    return None
                self.returncode = -9
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
            time.sleep(0.005)
        assert self.returncode is not None
        return self.returncode


def _state(pid: int) -> str:
    """'running', 'zombie' (exited, not reaped yet) or 'gone'."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return "zombie" if handle.read().rsplit(b")", 1)[1].split()[0] == b"Z" else "running"
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return "gone"
        return "running"


class Zygote:
    """``python -m vtgate.run.forkserver --zygote SOCKET`` under one environment: forks fork servers
    (``spawn``) that start with ``[suite] preload`` (default NumPy) imported."""

    def __init__(self, children: ChildProcesses, python: str, env: Mapping[str, str],
                 preload: Sequence[str] = ("numpy",)) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="vtgate-zygote-"))
        self.socket_path = str(self.folder / "socket")
        self.lock = threading.Lock()
        self.process = children.start([python, "-m", "vtgate.run.forkserver", "--zygote", self.socket_path,
                                       "--preload", ",".join(preload)],
                                      cwd=self.folder, env=env, stdin=True)
        self.pipes = _Worker(self.process)
        try:
            ready = self.pipes.lines.get(timeout=ZYGOTE_READY_SECONDS)
        except queue.Empty:
            ready = None
        self.ready = ready is not None and ready.strip() == b"ready"

    def _request(self, message: Mapping[str, Any], fds: Sequence[int] = ()) -> dict[str, Any]:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.connect(self.socket_path)
            socket.send_fds(connection, [json.dumps(message).encode("utf-8") + b"\n"], list(fds))
            reply = connection.makefile("rb").readline()
        if not reply:
            raise OSError("the zygote did not answer")
        return cast(dict[str, Any], json.loads(reply))

    def spawn(self, cwd: Path, env: Mapping[str, str], module: str) -> ForkedServer:
        """A fork server for ``module`` in ``cwd`` under ``env`` (OSError when the zygote is gone)."""
        stdin_read, stdin_write = os.pipe()
        stdout_read, stdout_write = os.pipe()
        stderr_read, stderr_write = os.pipe()
        theirs, ours = (stdin_read, stdout_write, stderr_write), (stdin_write, stdout_read, stderr_read)
        try:
            with self.lock:
                reply = self._request({"cwd": str(cwd), "env": dict(env), "module": module}, theirs)
        except BaseException:
            for fd in ours:
                os.close(fd)
            raise
        finally:
            for fd in theirs:
                os.close(fd)
        status_file = Path(f"{self.socket_path}.status") / str(reply["serial"])
        return ForkedServer(int(reply["pid"]), self.process.pid, status_file, *ours)

    def modules(self) -> list[str]:
        """The names in the zygote's ``sys.modules`` (what every server it forks starts with)."""
        with self.lock:
            return list(self._request({"modules": True})["modules"])

    def close(self, children: ChildProcesses) -> None:
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        children.wait(self.process, CLOSE_WAIT_SECONDS)
        shutil.rmtree(self.folder, ignore_errors=True)


class _Worker:
    """One worker process: a thread reads its stdout lines into a queue, another keeps its last
    stderr lines; ``lock`` makes its runs one at a time."""

    def __init__(self, process: subprocess.Popen[bytes] | ForkedServer) -> None:
        self.process = process
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self.lock = threading.Lock()
        self.drained_at = time.monotonic()  # when the last stderr line was kept
        self.drain_ended = False
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
            self.drained_at = time.monotonic()
        self.drain_ended = True

    @property
    def tail(self) -> str:
        return "\n".join(self.stderr)

    def settled_tail(self, most: float = 2.0, quiet: float = 0.05) -> str:
        """The tail once what the worker wrote to stderr before answering has been read. A failed run's
        traceback is in the pipe before the answer, but the reading thread may lag behind it under
        load: wait (at most ``most`` seconds) until the pipe holds nothing unread and no line has
        been kept for ``quiet`` seconds."""
        stream = self.process.stderr
        deadline = time.monotonic() + most
        try:
            fd = stream.fileno() if stream is not None else -1
        except (OSError, ValueError):
            fd = -1
        while fd >= 0 and not self.drain_ended and time.monotonic() < deadline:
            try:
                unread = bool(select.select([fd], [], [], 0)[0])
            except (OSError, ValueError):  # closed meanwhile: nothing more to read
                break
            if not unread and time.monotonic() - self.drained_at >= quiet:
                break
            time.sleep(0.01)
        return self.tail


class Workers:
    """The live workers of one caller (a ``SharedRuns`` pool); ``close`` ends them all."""

    def __init__(self, children: ChildProcesses, preload: Sequence[str] = ("numpy",)) -> None:
        self.children = children
        self.preload = tuple(preload)  # [suite] preload: what each zygote imports before forking servers
        self._workers: dict[WorkerKey, list[_Worker]] = {}
        self._lock = threading.Lock()
        self.started = 0
        self.zygotes: dict[ZygoteKey, Zygote | None] = {}  # None: it could not start; servers start fresh
        self.use_zygote = hasattr(os, "fork") and hasattr(socket, "send_fds") and hasattr(socket, "AF_UNIX")

    def _start(self, argv: Sequence[str], root: Path, env: Mapping[str, str]) -> subprocess.Popen[bytes] | ForkedServer:
        """A worker process: a fork server forked by its zygote when there is one, else started."""
        if self.use_zygote and len(argv) == 4 and tuple(argv[1:3]) == FORKSERVER:
            base = {name: value for name, value in env.items() if name != "PYTHONPATH"}
            key: ZygoteKey = (argv[0], tuple(sorted(base.items())))
            if key not in self.zygotes:
                started = Zygote(self.children, argv[0], base, self.preload)
                if not started.ready:
                    started.close(self.children)
                self.zygotes[key] = started if started.ready else None
            found = self.zygotes[key]
            if found is not None:
                with contextlib.suppress(OSError):
                    return found.spawn(root, env, argv[3])
        return self.children.start(argv, cwd=root, env=env, stdin=True)

    def ask(self, argv: Sequence[str], env: Mapping[str, str], root: Path, args_json: str,
            timeout: float, request: bytes | None = None,
            spare: bool = False) -> tuple[Mapping[str, Any] | None, str | None, str, bool]:
        """One run: (observation, error, stderr tail, timed_out). ``request`` replaces the
        ``{"args": ...}`` line (the fork server of ``vtgate.run.forkserver`` takes probe, args and env);
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
                    worker = _Worker(self._start(argv, root, env))
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
            return None, f"worker reported: {reply['vtgate_error']}", worker.settled_tail(), False, False
        if "vtgate_exit" in reply:  # a failed run: its traceback goes with the error, once read
            return reply, None, worker.settled_tail(), False, False
        return reply, None, worker.tail, False, False

    def _forget(self, key: WorkerKey, worker: _Worker, kill: bool = False) -> None:
        with self._lock:
            pool = self._workers.get(key, [])
            if worker in pool:
                pool.remove(worker)
        if kill:
            kill_tree(worker.process.pid)
        self.children.wait(cast(subprocess.Popen[bytes], worker.process), CLOSE_WAIT_SECONDS)

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
            self.children.wait(cast(subprocess.Popen[bytes], worker.process), CLOSE_WAIT_SECONDS)
        if root is None:
            with self._lock:
                zygotes = [z for z in self.zygotes.values() if z is not None]
                self.zygotes.clear()
            for zygote in zygotes:
                zygote.close(self.children)
