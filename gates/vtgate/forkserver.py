"""A fork server for callable probes: ``python -m vtgate.forkserver MODULE`` imports the probe module
once (NumPy, the engine under test, everything it imports) and then answers each run in a child
forked from that warm state, so a run pays for the probe's own work, not for an interpreter start
and the imports. vtgate mutate --code runs every probe of one mutated copy this way.

Each child starts from the state right after the import, as a fresh ``python -m vtgate.probe_entry``
would, with ``os.environ`` replaced by the run's exact environment; nothing one run does reaches the
next. The import itself ran under the server's environment (the run's without its knobs), so it is
traced: if the import read a variable (through ``os.environ``) whose value the run sets differently,
that child does not use the warm state but ``exec``s a fresh ``vtgate.probe_entry`` under the run's
environment. (A C extension calling ``getenv`` at import is not seen by the trace.)

Protocol (line-delimited JSON, one run at a time, over the server's stdin/stdout, like
``vtgate.workers``): vtgate writes ``{"probe": "module:function", "args": {...}, "env": {...}}``; the
server answers the observation, or ``{"vtgate_exit": STATUS}`` for a run that failed (``STATUS`` as
a ``Popen.returncode``: negative for a signal; the traceback is on the server's stderr). The
server exits when its stdin closes."""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

ALL = "*"  # the import iterated over the whole environment


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


def _differs(read: set[str], server_env: Mapping[str, str], run_env: Mapping[str, str]) -> bool:
    """Whether the run's environment differs from the server's in a variable the import read."""
    if ALL in read:
        return dict(server_env) != dict(run_env)
    return any(server_env.get(name) != run_env.get(name) for name in read)


def _child(probe: str, args: Mapping[str, Any], env: Mapping[str, str], result_fd: int, fresh: bool) -> int:
    """In the forked child: the run's environment, stdout to stderr, the observation to ``result_fd``."""
    os.dup2(result_fd, 1)  # an exec'd probe_entry prints its observation on stdout
    os.close(result_fd)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # like a fresh probe run: no stdin
    os.close(devnull)
    if fresh:
        argv = [sys.executable, "-m", "vtgate.probe_entry", probe, "--args", json.dumps(args)]
        os.execve(sys.executable, argv, dict(env))
    os.environ.clear()
    os.environ.update(env)
    from vtgate.probe_entry import main

    return main([probe, "--args", json.dumps(args)])


def _run(request: Mapping[str, Any], server_env: Mapping[str, str], read: set[str]) -> dict[str, Any]:
    probe, args, env = request["probe"], request.get("args", {}), request["env"]
    fresh = _differs(read, server_env, env)
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
    if status != 0 or not text:
        return {"vtgate_exit": status}
    try:
        reply = json.loads(text)
    except json.JSONDecodeError:
        return {"vtgate_error": f"the probe printed non-JSON; it starts {text[:80]!r}"}
    return reply if isinstance(reply, dict) else {"vtgate_error": f"the probe printed JSON {type(reply).__name__}"}


def serve(module: str) -> int:
    """Import ``module`` (a failure is left to each run, which imports it again and fails the same
    way), then answer runs until stdin closes."""
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    server_env = dict(os.environ)
    with _EnvTrace() as trace:
        try:
            importlib.import_module("vtgate.probe_entry")
            importlib.import_module(module)
        except BaseException:  # noqa: BLE001 - e.g. a mutant that breaks the import: every run reports it
            pass
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = _run(json.loads(line), server_env, trace.names)
        except (ValueError, KeyError, TypeError) as error:
            reply = {"vtgate_error": f"bad request to the fork server: {error}"}
        answers.write(json.dumps(reply, allow_nan=False) + "\n")
        answers.flush()
    return 0


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1]))
