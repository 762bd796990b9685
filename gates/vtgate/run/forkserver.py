"""A fork server for callable probes: ``python -m vtgate.run.forkserver MODULE`` imports the probe module
once (NumPy, the engine under test, everything it imports) and then answers each run in a child
forked from that warm state, so a run pays for the probe's own work, not for an interpreter start
and the imports. vtgate mutate --code runs every probe of one mutated copy this way.

Each child starts from the state right after the import, as a fresh ``python -m vtgate.run.child``
would, with ``os.environ`` replaced by the run's exact environment; nothing one run does reaches the
next. The import itself ran under the server's environment (the run's without its knobs), so it is
traced: if the import read a variable (through ``os.environ``) whose value the run sets differently,
that child does not use the warm state but ``exec``s a fresh ``vtgate.run.child`` under the run's
environment; so does a run that sets a variable the interpreter reads as it starts (``PYTHONPATH``,
``PYTHONHASHSEED``, the locale) to another value than the server's. (A C extension calling ``getenv``
at import is not seen by the trace.) An import that
started a Python thread makes every run fresh (a forked child has only the thread that forked). A
forked child ends as an interpreter does: it waits for its threads that are not daemons and runs the
``atexit`` callbacks before it exits, so a probe that leaves either hanging times out as a fresh run would.

Protocol (line-delimited JSON, one run at a time, over the server's stdin/stdout, like
``vtgate.run.workers``): vtgate writes ``{"probe": "module:function", "args": {...}, "env": {...}}``; the
server answers the observation, ``{"vtgate_exit": STATUS}`` for a run that failed (``STATUS`` as
a ``Popen.returncode``: negative for a signal; the traceback is on the server's stderr), or
``{"vtgate_stdout": TEXT}`` for a run that printed something other than a JSON object. The
server exits when its stdin closes.

A server need not pay for its interpreter and NumPy either: ``python -m vtgate.run.forkserver --zygote
SOCKET --preload numpy,...`` (the *zygote*, one per vtgate run and server environment) imports the
suite's ``[suite] preload`` (third-party modules, default NumPy) and vtgate's probe machinery, never
the code under test, and forks each server on request (``vtgate.run.workers`` sends the
server's cwd, environment, module and its three pipe ends over the Unix socket). The forked server
then imports the module under test itself, in the copy, exactly as a fresh ``python -m
vtgate.run.forkserver MODULE`` would. It is only used when that is provably the same start: the server's
environment equals the zygote's but for ``PYTHONPATH`` (which its import did not read), no module the
zygote imported is shadowed by a file on the server's new path entries, and every entry is absolute;
otherwise the forked child ``exec``s the fresh server under the same pid and pipes."""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import os
import select
import signal
import socket
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

ALL = "*"  # the import iterated over the whole environment
PRELOAD = ("vtgate.run.child",)  # what every zygote imports, after [suite] preload (default: numpy)
PYTHONPATH = "PYTHONPATH"
REAP_SECONDS = 1.0  # the longest a zygote leaves an exited server unreaped, were every wake-up missed
STARTUP = frozenset({"sitecustomize", "usercustomize"})  # what the site module imports at start, if found


class _EnvTrace:
    """Names read through ``os.environ`` while it is installed (``ALL`` when it was iterated)."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self._saved: dict[str, Callable[..., Any]] = {}

    def __enter__(self) -> _EnvTrace:
        kind = type(os.environ)
        names = self.names
        getitem, contains, iterate = kind.__getitem__, kind.__contains__, kind.__iter__

        def traced_getitem(environ: Any, key: str) -> str:
            names.add(key)
            return getitem(environ, key)

        def traced_contains(environ: Any, key: object) -> bool:
            names.add(str(key))
            return contains(environ, key)

        def traced_iter(environ: Any) -> Iterator[str]:
            names.add(ALL)
            return iterate(environ)

        self._saved = {"__getitem__": getitem, "__contains__": contains, "__iter__": iterate}
        kind.__getitem__ = traced_getitem  # type: ignore[method-assign]
        kind.__contains__ = traced_contains  # type: ignore[method-assign]
        kind.__iter__ = traced_iter  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        kind = type(os.environ)
        for name, method in self._saved.items():
            setattr(kind, name, method)


def _at_start(name: str) -> bool:
    """A variable the interpreter itself reads as it starts (``PYTHONPATH``, ``PYTHONHASHSEED``, the
    locale), never through ``os.environ``: no trace of the import sees it."""
    return name.startswith(("PYTHON", "LC_")) or name in ("LANG", "LANGUAGE")


def _differs(read: set[str], server_env: Mapping[str, str], run_env: Mapping[str, str]) -> bool:
    """Whether the run's environment differs from the server's in a variable the import read, or in
    one the interpreter read as it started."""
    if ALL in read:
        return dict(server_env) != dict(run_env)
    names = read | {name for name in (*server_env, *run_env) if _at_start(name)}
    return any(server_env.get(name) != run_env.get(name) for name in names)


def _child(probe: str, args: Mapping[str, Any], env: Mapping[str, str], result_fd: int, fresh: bool) -> int:
    """In the forked child: the run's environment, stdout to stderr, the observation to ``result_fd``;
    ``sys.argv`` as ``python -m vtgate.run.child`` would have it."""
    os.dup2(result_fd, 1)  # an exec'd vtgate.run.child prints its observation on stdout
    os.close(result_fd)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # like a fresh probe run: no stdin
    os.close(devnull)
    if fresh:
        argv = [sys.executable, "-m", "vtgate.run.child", probe, "--args", json.dumps(args)]
        os.execve(sys.executable, argv, dict(env))
    os.environ.clear()
    os.environ.update(env)
    tempfile.tempdir = None  # the run's TMPDIR, not one the server's import may have looked up
    from vtgate.run import child

    sys.argv[:] = [str(Path(child.__file__ or "").resolve()), probe, "--args", json.dumps(args)]
    return child.main(sys.argv[1:])


def _finish() -> None:
    """What a fresh interpreter does after its program ends and before it exits: wait for the threads
    that are not daemons, then run the ``atexit`` callbacks (an error in one is printed, as Python does).
    A run whose probe leaves a thread running or registers a callback that hangs hangs here too, and
    its timeout says so."""
    shutdown = getattr(threading, "_shutdown", None)  # what Py_FinalizeEx calls (CPython 3.10-3.13)
    if shutdown is not None:
        try:
            shutdown()
        except Exception:  # noqa: BLE001 - printed like the interpreter's own report, the run's status kept
            import traceback

            traceback.print_exc()
    atexit._run_exitfuncs()


def _run(request: Mapping[str, Any], server_env: Mapping[str, str], read: set[str], threads: bool = False) -> dict[str, Any]:
    """One run in a forked child (an ``exec``'d fresh ``vtgate.run.child`` when the import read a
    variable the run sets differently, or when ``threads``: the import started a Python thread, which
    a forked child would not have)."""
    probe, args, env = request["probe"], request.get("args", {}), request["env"]
    fresh = threads or _differs(read, server_env, env)
    result_read, result_write = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child never returns into the server loop
        status = 3
        try:
            os.close(result_read)
            status = _child(probe, args, env, result_write, fresh)
        except SystemExit as done:  # as the interpreter exits on it: None is 0, a message is 1
            status = 0 if done.code is None else done.code if isinstance(done.code, int) else 1
        except BaseException:  # noqa: BLE001 - reported as a failed run, the way a fresh process would
            import traceback

            traceback.print_exc()
            status = 1
        finally:
            try:
                _finish()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(status)
    os.close(result_write)
    chunks = []
    while True:
        chunk = os.read(result_read, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(result_read)
    _, wait_status = os.waitpid(pid, 0)
    status = os.waitstatus_to_exitcode(wait_status)
    text = b"".join(chunks).decode("utf-8", "replace").strip()
    if status != 0:
        return {"vtgate_exit": status}
    try:
        reply = json.loads(text)
    except json.JSONDecodeError:
        reply = None
    # what is not an observation goes back as printed, for vtgate to report as it does a fresh run's
    return reply if isinstance(reply, dict) else {"vtgate_stdout": text}


def serve(module: str) -> int:
    """Import ``module`` (a failure is left to each run, which imports it again and fails the same
    way), then answer runs until stdin closes."""
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    server_env = dict(os.environ)
    with _EnvTrace() as trace:
        try:
            importlib.import_module("vtgate.run.child")
            importlib.import_module(module)
        except BaseException:  # noqa: BLE001 - e.g. a mutant that breaks the import: every run reports it
            pass
    threads = threading.active_count() > 1  # the import started a thread: no forked child would have it
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = _run(json.loads(line), server_env, trace.names, threads)
        except (ValueError, KeyError, TypeError) as error:
            reply = {"vtgate_error": f"bad request to the fork server: {error}"}
        answers.write(json.dumps(reply, allow_nan=False) + "\n")
        answers.flush()
    return 0


def _top_level_names(entry: str) -> set[str]:
    """The names a path entry offers for import: modules (``name.py``, extensions) and regular
    packages (a folder with ``__init__.py``); a folder without one is a namespace portion, which a
    module found anywhere on the path wins over."""
    names: set[str] = set()
    try:
        listing = os.scandir(entry)
    except OSError:
        return names
    with listing:
        for item in listing:
            if item.is_dir():
                if os.path.exists(os.path.join(item.path, "__init__.py")):
                    names.add(item.name)
            elif item.name.endswith((".py", ".pyc", ".so", ".pyd")):
                names.add(item.name.split(".", 1)[0])
    return names


def same_start(zygote_env: Mapping[str, str], read: set[str], env: Mapping[str, str], front: Sequence[str],
               loaded: set[str]) -> bool:
    """Whether a server forked from the zygote starts as a fresh one under ``env`` would: the same
    environment but ``PYTHONPATH`` (not read by the zygote's imports), absolute new path entries
    (``front``: the cwd, then ``PYTHONPATH``'s), and none of them offering a module the zygote imported
    (``loaded``: top-level names), which a fresh interpreter would have taken from there instead."""
    if ALL in read or PYTHONPATH in read:
        return False
    loaded = loaded | STARTUP  # a fresh interpreter imports these from the path at start, if there
    if {k: v for k, v in zygote_env.items() if k != PYTHONPATH} != {k: v for k, v in env.items() if k != PYTHONPATH}:
        return False
    if not all(entry and os.path.isabs(entry) for entry in front):
        return False
    return not any(_top_level_names(entry) & loaded for entry in front)


def _loaded_top_level() -> set[str]:
    return {name.partition(".")[0] for name in sys.modules}


def _become_server(request: Mapping[str, Any], fds: Sequence[int], zygote_env: Mapping[str, str],
                   read: set[str]) -> int:
    """In the zygote's forked child: take the passed pipes as stdin/stdout/stderr, move into the
    copy, and serve ``request["module"]``, from the warm imports when :func:`same_start` holds, else
    as a fresh ``exec``'d server."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
    os.setsid()  # its own session, as ChildProcesses starts every probe: a whole-tree kill reaches it
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    cwd, env, module = request["cwd"], dict(request["env"]), request["module"]
    os.chdir(cwd)
    front = [os.getcwd(), *(env.get(PYTHONPATH, "").split(os.pathsep) if env.get(PYTHONPATH) else [])]
    if not same_start(zygote_env, read, env, front, _loaded_top_level()):
        os.execve(sys.executable, [sys.executable, "-m", "vtgate.run.forkserver", module], env)
    os.environ.clear()
    os.environ.update(env)
    tempfile.tempdir = None
    sys.path[:] = [*front, *sys.path[1:]]  # the zygote's own cwd entry (first) gives way to the server's
    sys.path_importer_cache.clear()
    importlib.invalidate_caches()
    sys.argv[:] = [str(Path(__file__).resolve()), module]
    return serve(module)


def zygote(socket_path: str, preload: Sequence[str] = ("numpy",)) -> int:
    """Import ``preload`` (``[suite] preload``: third-party modules, never the code under test) and
    :data:`PRELOAD` (traced), then fork a server per connection to ``socket_path`` until
    stdin closes. A request is one JSON line ``{"cwd", "env", "module"}`` with three file descriptors
    (the server's stdin, stdout and stderr); the answer is ``{"pid": N, "serial": S}``. When a server
    exits, its exit status (as a ``Popen.returncode``) is written to ``SOCKET.status/S``. A request
    ``{"modules": true}`` is answered with the names in the zygote's ``sys.modules`` instead."""
    zygote_env = dict(os.environ)
    with _EnvTrace() as trace:
        for name in (*preload, *PRELOAD):
            with contextlib.suppress(ImportError):  # one absent: the servers import what they need
                importlib.import_module(name)
    statuses = Path(f"{socket_path}.status")
    statuses.mkdir(exist_ok=True)
    serials: dict[int, int] = {}

    def reap(signum: int, frame: object) -> None:
        while True:
            try:
                pid, wait_status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            serial = serials.pop(pid, None)
            if serial is not None:
                partial = statuses / f"{serial}.tmp"
                partial.write_text(str(os.waitstatus_to_exitcode(wait_status)))
                os.replace(partial, statuses / str(serial))

    # SIGCHLD may land on any thread that does not block it (a BLAS pool started by a preload): its C
    # handler then neither interrupts this thread's select nor sets the flag that runs ``reap`` here, and
    # a server's status would wait for the next request. The handler also writes to ``woken``, which
    # the select watches, and every pass of the loop reaps; REAP_SECONDS bounds the wait regardless.
    woken, wake = os.pipe()
    os.set_blocking(wake, False)
    signal.set_wakeup_fd(wake, warn_on_full_buffer=False)
    signal.signal(signal.SIGCHLD, reap)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    listener.listen(16)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    serial = 0
    while True:
        ready, _, _ = select.select([listener, sys.stdin, woken], [], [], REAP_SECONDS)
        if woken in ready:
            os.read(woken, 4096)
        reap(signal.SIGCHLD, None)
        if sys.stdin in ready and not sys.stdin.buffer.readline():
            return 0  # stdin closed: vtgate is done with this zygote
        if listener not in ready:
            continue
        connection, _ = listener.accept()
        with connection:
            message, fds, _, _ = socket.recv_fds(connection, 1 << 16, 3)
            while message and not message.endswith(b"\n"):  # a long request comes in more than one read
                more = connection.recv(1 << 16)
                if not more:
                    break
                message += more
            request = json.loads(message.decode("utf-8"))
            if request.get("modules"):
                connection.sendall(json.dumps({"modules": sorted(sys.modules)}).encode("utf-8") + b"\n")
                continue
            serial += 1
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})  # record the pid before it can be reaped
            pid = os.fork()
            if pid == 0:
                status = 3
                try:
                    signal.set_wakeup_fd(-1)
                    for fd in (woken, wake):
                        os.close(fd)
                    listener.close()
                    connection.close()
                    status = _become_server(request, fds, zygote_env, trace.names)
                except SystemExit as done:
                    status = 0 if done.code is None else done.code if isinstance(done.code, int) else 1
                except BaseException:  # noqa: BLE001 - on the server's stderr, as a fresh server's would be
                    import traceback

                    traceback.print_exc()
                    status = 1
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(status)
            serials[pid] = serial
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
            for fd in fds:
                os.close(fd)
            connection.sendall(json.dumps({"pid": pid, "serial": serial}).encode("utf-8") + b"\n")


if __name__ == "__main__":
    if sys.argv[1] == "--zygote":
        named = sys.argv[4].split(",") if len(sys.argv) > 4 and sys.argv[3] == "--preload" else ["numpy"]
        sys.exit(zygote(sys.argv[2], [name for name in named if name]))
    sys.exit(serve(sys.argv[1]))
