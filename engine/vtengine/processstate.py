"""What one process shares between a host and the engine it runs, taken as comparable values, and
what changed between two takes: the API snapshot's "the process after the group" calls, and its
child that imports the engine into a fresh host. Imports nothing of vtengine (the child loads this file
by its path, before the package), and reads the environment only through the reader it is handed (the
knobs module is the engine's one reader of it)."""

from __future__ import annotations

import hashlib
import os
import signal
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np

WATCHED_MODULES = ("builtins", "math", "json", "os", "os.path", "numpy", "numpy.linalg", "tempfile", "subprocess")


def bindings() -> dict[str, int]:
    """``module.name -> id`` of every public binding in the modules a caller shares with the engine:
    a monkeypatch (``np.matmul = fast``) rebinds one."""
    import sys

    found: dict[str, int] = {}
    for module_name in WATCHED_MODULES:
        module = sys.modules.get(module_name)
        for name, value in (vars(module).items() if module is not None else ()):
            if not name.startswith("_") and not isinstance(value, (int, float, str, bytes, bool, type(None))):
                found[f"{module_name}.{name}"] = id(value)
    return found


def open_descriptors() -> int | None:
    """How many file descriptors this process holds (Linux's /proc; None where there is none)."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return None


# the package whose objects are counted, and its modules that observe rather than are observed
PACKAGE, OBSERVERS = "vtengine", ("vtengine.snapshot", "vtengine.processstate")


def alive() -> dict[str, int]:
    """How many objects of each of the package's own types are alive (after a collection): an object
    nobody holds that stays alive is held by something the caller cannot see (a class-level cache)."""
    import gc
    from collections import Counter

    counts: Counter[str] = Counter()
    for obj in gc.get_objects():
        kind = type(obj)
        module = kind.__dict__.get("__module__", "") if isinstance(kind.__dict__.get("__module__"), str) else ""
        if module.startswith(PACKAGE + ".") and module not in OBSERVERS and not isinstance(obj, type):
            counts[f"{module}.{kind.__qualname__}"] += 1
    return dict(sorted(counts.items()))


def state(environment: Callable[[], dict[str, str]]) -> dict[str, Any]:
    """What a caller of the engine shares with it in one process, each by a comparable value."""
    import atexit
    import faulthandler
    import gc
    import locale
    import logging
    import random
    import sys
    import threading
    import warnings

    gc.collect()  # an engine nobody holds has released its thread pool and files
    umask = os.umask(0o022)
    os.umask(umask)
    signals = {s.name: signal.getsignal(s) for s in signal.valid_signals()
               if isinstance(s, signal.Signals) and s not in (signal.SIGKILL, signal.SIGSTOP)}
    root = logging.getLogger()
    return {
        "environment": environment(), "working folder": os.getcwd(), "signal handlers": signals,
        "umask": umask, "interval timer": signal.getitimer(signal.ITIMER_REAL) != (0.0, 0.0),
        "threads left running": sorted(t.daemon for t in threading.enumerate() if t is not threading.main_thread()),
        "threads": frozenset(threading.enumerate()),
        "file descriptors": open_descriptors(),
        "NumPy error handling": (np.geterr(), np.geterrcall()), "NumPy print options": np.get_printoptions(),
        "NumPy global generator": hashlib.sha256(repr(np.random.get_state(legacy=True)).encode()).hexdigest(),
        "Python random module": hashlib.sha256(repr(random.getstate()).encode()).hexdigest(),
        "sys.path": list(sys.path), "sys.argv": list(sys.argv),
        "standard streams": (id(sys.stdout), id(sys.stderr), id(sys.stdin)),
        "hooks": (sys.excepthook, threading.excepthook, sys.getprofile(), sys.gettrace(), sys.displayhook),
        "interpreter limits": (sys.getrecursionlimit(), sys.getswitchinterval(), gc.isenabled(), gc.get_threshold()),
        "warnings filters": list(warnings.filters),
        "logging": (root.level, list(root.handlers), logging.root.manager.disable,
                    [(name, lg.level, list(lg.handlers), lg.propagate) for name, lg in  # configured ones: a
                     sorted(logging.root.manager.loggerDict.items())  # logger an import merely creates is not
                     if isinstance(lg, logging.Logger) and (lg.level or lg.handlers or not lg.propagate)]),
        "locale": locale.setlocale(locale.LC_ALL, None), "faulthandler": faulthandler.is_enabled(),
        "exit handlers": atexit._ncallbacks(),
        "module bindings": bindings(),
        "engine objects alive": alive(),
        "temporary folder": sorted(os.listdir(tempfile.gettempdir())),
    }


SETTLE_SECONDS = 3.0


def settle(known: frozenset[Any]) -> None:
    """Give the threads a group started up to ``SETTLE_SECONDS`` (together) to end: an engine nobody
    holds stops its pool's workers once collected, but they end on their own time. Still running
    after that, a thread is the group's change (a non-daemon one keeps the interpreter from exiting)."""
    import gc
    import threading
    import time

    gc.collect()
    deadline = time.monotonic() + SETTLE_SECONDS
    for thread in threading.enumerate():
        if thread not in known and thread is not threading.current_thread():
            thread.join(max(0.0, deadline - time.monotonic()))


def changes(before: dict[str, Any], after: dict[str, Any], seen: dict[str, str] | None = None) -> dict[str, Any]:
    """What a group of calls left changed in this process: each shared thing by name (environment
    variables and bindings by their names: their values are the host's), and the variables a child
    process started now sees otherwise than Python's view says (an environment Python shows but the
    process does not hold). The temporary folder is this run's own (``run`` points ``tempfile`` there).
    Only what changed is listed: ``{}`` is a group that left the process as it found it."""
    env, was = after["environment"], before["environment"]
    changes: dict[str, Any] = {
        "environment changed": sorted(k for k in set(env) | set(was) if env.get(k) != was.get(k)),
        "a child sees otherwise": [] if seen is None else sorted(k for k in set(env) | set(seen) if env.get(k) != seen.get(k)),
        "bindings rebound": sorted(k for k in before["module bindings"]
                                   if after["module bindings"].get(k) != before["module bindings"][k]),
        "signal handlers changed": sorted(k for k in after["signal handlers"]
                                          if after["signal handlers"][k] != before["signal handlers"].get(k)),
        "temporary files left": sorted(set(after["temporary folder"]) - set(before["temporary folder"])),
    }
    compared = [k for k in after if k not in ("environment", "module bindings", "signal handlers", "temporary folder",
                                              "threads", "engine objects alive")]
    objects, was_alive = after["engine objects alive"], before["engine objects alive"]
    changes["engine objects left alive"] = {k: objects[k] - was_alive.get(k, 0) for k in objects
                                            if objects[k] > was_alive.get(k, 0)}
    changes["changed"] = [k for k in compared if after[k] != before[k]]
    first = ("changed", "environment changed", "a child sees otherwise", "bindings rebound", "signal handlers changed",
             "temporary files left")  # the short lists before the counts: a verdict shows the head
    return {k: changes[k] for k in (*first, *(k for k in changes if k not in first)) if changes[k]}
