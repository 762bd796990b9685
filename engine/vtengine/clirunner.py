"""Warm runs of the ``vtengine`` CLI, for the cli family (:mod:`vtengine.families`).

A cold ``python -m vtengine`` spends about 0.6 CPU seconds before the command starts, most of it in
importing ml_dtypes (which registers its casts and ufunc loops one by one). The cli family runs the
CLI about forty times per gate run, once per case, so most of the family's time was interpreter
start-up. Here one interpreter per worker imports the CLI and the engine once, then forks a child per
run. Each child is its own process: the run's environment (exactly, not added to), stdout and stderr
as files read back as text, stdin from /dev/null, ``sys.argv`` as ``-m`` sets it, then
``vtengine/__main__.py`` run by ``runpy`` and its exit code (``SystemExit`` as the interpreter reads
it, atexit handlers run, streams flushed) as the process's. The imports happen before the run's
environment is set, which the engine permits: it reads its knobs when a call starts
(``Knobs.from_env``), never at import.

What a warm run does not exercise: the interpreter's own start-up and finalisation. The family keeps
cold runs (a fresh interpreter each) for those: ``--version``, an unknown command, the first
``generate --json -`` (the JSON a user's shell gets), and every signal case. When the warm
interpreter cannot start (a copy of the engine whose modules fail to import), every run is cold, so
the outcome is the one a user would see.

vtengine imports no vtgate, so this is its own small fork server.
"""

from __future__ import annotations

import contextlib
import json
import locale
import os
import queue
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

READY_SECONDS = 120.0  # the warm interpreter's imports; past this it is not used (runs go cold)
STOP_SECONDS = 5.0

# The warm interpreter: imports, says "ready", then one request per stdin line, answered on stdout
# with the child's pid and then its exit code. It forks only between requests, one child at a time.
_SERVER = r"""
import json, os, runpy, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
import vtengine.cli, vtengine.probes, vtengine.checkpoint, vtengine.armcheck, vtengine.profiler
from vtengine.knobs import restore_environment
import psutil, rich.progress, rich.table

def run_child(request):
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for fd, path in ((1, request["out"]), (2, request["err"])):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(target, fd)
        os.close(target)
    os.chdir(request["cwd"])
    restore_environment(request["env"])  # exactly the run's environment (vtengine.knobs: the one place it is set)
    sys.argv = ["-m", *request["args"]]
    code = 0
    try:
        runpy.run_module("vtengine", run_name="__main__", alter_sys=True)
    except SystemExit as leaving:
        if leaving.code is None:
            code = 0
        elif isinstance(leaving.code, int):
            code = leaving.code
        else:
            print(leaving.code, file=sys.stderr)
            code = 1
    except BaseException:
        import traceback
        traceback.print_exc()
        code = 1
    try:
        import atexit
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(code & 0xFF)

answer = os.fdopen(os.dup(1), "w")
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
answer.write("ready\n")
answer.flush()
for line in sys.stdin:
    request = json.loads(line)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        answer.close()
        run_child(request)
    answer.write(json.dumps({"pid": pid}) + "\n")
    answer.flush()
    _, status = os.waitpid(pid, 0)
    answer.write(json.dumps({"code": os.waitstatus_to_exitcode(status)}) + "\n")
    answer.flush()
"""


class _Server:
    """One warm interpreter and the bytes it has sent that are not read yet."""

    def __init__(self, env: Mapping[str, str], cwd: str) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", _SERVER], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=dict(env), cwd=cwd)
        self.pending = b""
        self.alive = False  # until it says "ready" (await_ready)

    def await_ready(self) -> None:
        self.alive = self._line(time.monotonic() + READY_SECONDS) == "ready"
        if not self.alive:
            self.stop()

    def _line(self, deadline: float) -> str | None:
        """The next line it sends, or None by ``deadline`` or at its end."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        with selectors.DefaultSelector() as waiting:
            waiting.register(fd, selectors.EVENT_READ)
            while b"\n" not in self.pending:
                left = deadline - time.monotonic()
                if left <= 0 or not waiting.select(left):
                    return None
                chunk = os.read(fd, 65536)
                if not chunk:
                    return None
                self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line.decode()

    def run(self, args: Sequence[str], env: Mapping[str, str], timeout: float) -> tuple[int, str, str]:
        assert self.process.stdin is not None
        with tempfile.TemporaryDirectory(prefix="vtengine-cli-") as folder:
            out, err = Path(folder) / "stdout", Path(folder) / "stderr"
            request = {"args": list(args), "env": dict(env), "cwd": os.getcwd(), "out": str(out), "err": str(err)}
            deadline = time.monotonic() + timeout
            try:
                self.process.stdin.write((json.dumps(request) + "\n").encode())
                self.process.stdin.flush()
            except OSError:
                self.alive = False
                raise
            started = self._line(time.monotonic() + READY_SECONDS)
            if started is None:
                self.alive = False
                raise OSError("the warm vtengine interpreter ended")
            pid = int(json.loads(started)["pid"])
            ended = self._line(deadline)
            if ended is None:  # as subprocess.run(timeout=...) does: the run is killed, then it is raised
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                self._line(time.monotonic() + STOP_SECONDS)
                raise subprocess.TimeoutExpired(["vtengine", *args], timeout)
            code = int(json.loads(ended)["code"])
            encoding = locale.getpreferredencoding(False)  # what text=True decodes with
            return (code, _text(out, encoding), _text(err, encoding))

    def stop(self) -> None:
        stdin: IO[bytes] | None = self.process.stdin
        try:
            if stdin is not None:
                stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def _text(path: Path, encoding: str) -> str:
    """A captured stream as ``subprocess.run(text=True)`` gives it (universal newlines)."""
    data = path.read_bytes().decode(encoding)
    return data.replace("\r\n", "\n").replace("\r", "\n")


class WarmCLI:
    """``workers`` warm interpreters started with ``env`` (the runs' common environment); ``run`` takes
    a free one, or runs cold when none could start. Use as a context manager: leaving stops them."""

    def __init__(self, env: Mapping[str, str], workers: int = 2) -> None:
        self.env = dict(env)
        cwd = os.getcwd()
        self.servers: list[_Server] = [_Server(self.env, cwd) for _ in range(max(1, workers))]
        for server in self.servers:  # started together, so their imports overlap
            server.await_ready()
        self.free: queue.Queue[_Server] = queue.Queue()
        for server in self.servers:
            if server.alive:
                self.free.put(server)
        self.warm = any(s.alive for s in self.servers)
        self.served = 0  # runs a warm interpreter answered

    def __enter__(self) -> WarmCLI:
        return self

    def __exit__(self, *exc: Any) -> None:
        for server in self.servers:
            server.stop()

    def run(self, args: Sequence[str], env: Mapping[str, str], timeout: float = 300.0) -> tuple[int, str, str]:
        """(exit code, stdout, stderr) of ``vtengine args`` with exactly ``env``. Warm only when ``env``
        is the interpreters' own: what a module reads at import (rich's console reads NO_COLOR, TERM
        and COLUMNS when the CLI module is imported; a knob read at import would be a bug the cold run
        shows) is then what a cold run reads. Any other environment runs cold."""
        if self.warm and dict(env) == self.env:
            server = self.free.get()
            try:
                if server.alive:
                    try:
                        answer = server.run(args, env, timeout)
                        self.served += 1
                        return answer
                    except OSError:  # it ended mid-run: this run is made cold, and the next ones too
                        server.alive = False
            finally:
                self.free.put(server)  # even ended: a thread waiting for a free one then runs cold
        return cold(args, env, timeout)


def cold(args: Sequence[str], env: Mapping[str, str], timeout: float = 300.0) -> tuple[int, str, str]:
    """``python -m vtengine args`` in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-m", "vtengine", *args], capture_output=True, text=True,
                          env=dict(env), timeout=timeout, check=False)
    return done.returncode, done.stdout, done.stderr
