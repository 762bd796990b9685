"""Run probes: each distinct (probe, args, env, root) once per check, in parallel, each in its own
subprocess with the env pin applied exactly as a user would set it, ``PYTHONPATH`` pointing at the
code under test and cwd = root. A crash, a timeout (the whole process tree is killed), or output that
is not one JSON object becomes an error carrying the probe's stderr tail; the stale guard
(docs/contracts.md section 3) turns an observation of the wrong code into an error of kind "stale"."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from vtgate.errors import ErrorKind
from vtgate.records import ProbeRef, ProbeRequest, SuiteSettings
from vtgate.treehash import source_tree_hash

STDERR_TAIL_LINES = 20

# Probe processes alive right now, so an interrupted check (Ctrl-C) can kill them: each runs in its
# own session (so a timeout can kill its whole tree) and therefore does not see the terminal's SIGINT.
_LIVE: set[subprocess.Popen[bytes]] = set()
_LIVE_LOCK = threading.Lock()


@dataclass(frozen=True)
class ProbeKey:
    """What makes two runs the same run: probe, canonical args JSON, sorted env items, root."""

    probe: ProbeRef
    args_json: str
    env: tuple[tuple[str, str], ...]
    root: str

    @classmethod
    def of(cls, request: ProbeRequest, root: Path, extra_env: Mapping[str, str] | None = None) -> ProbeKey:
        env = {**(extra_env or {}), **request.env}
        args_json = json.dumps(request.args, sort_keys=True, separators=(",", ":"))
        return cls(request.probe, args_json, tuple(sorted(env.items())), str(root))

    def describe(self) -> str:
        env = " ".join(f"{k}={v}" for k, v in self.env)
        return f"{env + ' ' if env else ''}{self.probe} {self.args_json}"


@dataclass(frozen=True)
class ProbeResult:
    key: ProbeKey
    observation: Mapping[str, Any] | None
    error: str | None
    error_kind: ErrorKind | None
    seconds: float
    stderr_tail: str = ""


def _argv(key: ProbeKey) -> list[str]:
    if key.probe.callable is not None:
        return [sys.executable, "-m", "vtgate.probe_entry", key.probe.callable, "--args", key.args_json]
    return list(key.probe.cmd or ())


def probe_environment(key: ProbeKey, root: Path, settings: SuiteSettings) -> dict[str, str]:
    """os.environ, then the run's env (mutation env under gate pin under the run's own knob values),
    then PYTHONPATH = root's source roots before whatever was there."""
    env = dict(os.environ)
    env.update(dict(key.env))
    if key.probe.cmd is not None:
        env["VTGATE_PROBE_ARGS"] = key.args_json  # a command probe reads its args from here
    entries = [str(root / entry) for entry in settings.pythonpath]
    if env.get("PYTHONPATH"):
        entries.append(env["PYTHONPATH"])
    if entries:
        env["PYTHONPATH"] = os.pathsep.join(entries)
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def _kill_tree(process: subprocess.Popen[bytes]) -> None:
    try:
        parent = psutil.Process(process.pid)
        family = parent.children(recursive=True) + [parent]
    except psutil.NoSuchProcess:
        family = []
    for member in family:
        with contextlib.suppress(psutil.NoSuchProcess):
            member.kill()
    with contextlib.suppress(OSError):
        os.killpg(process.pid, signal.SIGKILL)
    psutil.wait_procs(family, timeout=5)


def _tail(stderr: bytes) -> str:
    lines = stderr.decode("utf-8", "replace").rstrip().splitlines()
    return "\n".join(lines[-STDERR_TAIL_LINES:])


def _with_tail(message: str, tail: str) -> str:
    return f"{message}\n--- probe stderr (last lines) ---\n{tail}" if tail else f"{message} (stderr empty)"


def run_one(key: ProbeKey, root: Path, settings: SuiteSettings, timeout: float) -> ProbeResult:
    started = time.perf_counter()
    try:
        process = subprocess.Popen(
            _argv(key), cwd=root, env=probe_environment(key, root, settings),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        )
    except OSError as error:
        return ProbeResult(key, None, f"probe {key.probe} could not start: {error}", "probe", 0.0)
    with _LIVE_LOCK:
        _LIVE.add(process)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_tree(process)
        stdout, stderr = process.communicate()
        tail = _tail(stderr)
        seconds = time.perf_counter() - started
        message = f"probe {key.probe} timed out after {timeout:g} s and was killed (with its children)"
        return ProbeResult(key, None, _with_tail(message, tail), "timeout", seconds, tail)
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(process)
    seconds = time.perf_counter() - started
    tail = _tail(stderr)
    if process.returncode != 0:
        how = (f"was killed by signal {-process.returncode}" if process.returncode < 0
               else f"exited with status {process.returncode}")
        return ProbeResult(key, None, _with_tail(f"probe {key.probe} {how}", tail), "probe", seconds, tail)
    text = stdout.decode("utf-8", "replace").strip()
    try:
        observation = json.loads(text)
    except json.JSONDecodeError as error:
        start = text[:80] if text else "(nothing)"
        message = f"probe {key.probe} printed non-JSON ({error.msg} at line {error.lineno} column {error.colno}); stdout starts: {start!r}"
        return ProbeResult(key, None, _with_tail(message, tail), "probe", seconds, tail)
    if not isinstance(observation, dict):
        message = f"probe {key.probe} printed JSON {type(observation).__name__}, not an object (an observation is a JSON object)"
        return ProbeResult(key, None, _with_tail(message, tail), "probe", seconds, tail)
    return ProbeResult(key, observation, None, None, seconds, tail)


def run_probes(
    keys: Iterable[ProbeKey],
    root: Path,
    settings: SuiteSettings,
    *,
    timeouts: Mapping[ProbeKey, float] | None = None,
    jobs: int | None = None,
) -> dict[ProbeKey, ProbeResult]:
    """Run each distinct key once, ``jobs`` at a time (default: cores), longest timeout first."""
    unique = list(dict.fromkeys(keys))
    workers = max(1, jobs or os.cpu_count() or 1)
    limits = timeouts or {}
    results: dict[ProbeKey, ProbeResult] = {}
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        futures = {
            key: pool.submit(run_one, key, root, settings, limits.get(key, settings.timeout)) for key in unique
        }
        for key, future in futures.items():
            results[key] = future.result()
    except BaseException:  # Ctrl-C or a bug: leave no probe behind
        pool.shutdown(wait=False, cancel_futures=True)
        kill_live_probes()
        raise
    pool.shutdown()
    return results


def kill_live_probes() -> None:
    """Kill every probe process tree still running (used when a check is interrupted)."""
    with _LIVE_LOCK:
        live = list(_LIVE)
    for process in live:
        _kill_tree(process)


def check_stale(result: ProbeResult, expected_hash: str | None, source_tree: str | None) -> ProbeResult:
    """The stale-artifact guard: with ``[suite] source_tree`` set, an observation must prove (through
    ``meta.source_tree_hash``) that it ran the code under root."""
    if expected_hash is None or result.observation is None:
        return result
    meta = result.observation.get("meta")
    found = meta.get("source_tree_hash") if isinstance(meta, Mapping) else None
    if found == expected_hash:
        return result
    if found is None:
        message = (f"stale guard: the observation of {result.key.probe} has no meta.source_tree_hash, so it "
                   f"cannot prove it ran {source_tree} under {result.key.root}")
    else:
        message = (f"stale guard: probe {result.key.probe} ran code hashing {found[:12]}…, but "
                   f"{source_tree} under {result.key.root} hashes {expected_hash[:12]}…; another copy was "
                   f"imported (check [suite] pythonpath, stale installs, __pycache__)")
        source_root = meta.get("source_root") if isinstance(meta, Mapping) else None
        if source_root:
            message += f"; it imported from {source_root}"
    return ProbeResult(result.key, None, message, "stale", result.seconds, result.stderr_tail)


def changed_during_run(result: ProbeResult, source_tree: str | None) -> ProbeResult:
    """The tree under test changed while probes ran: no observation can be trusted to be of one tree."""
    message = (f"stale guard: {source_tree} under {result.key.root} changed while the probes ran "
               "(someone edited or checked out files); re-run the check on a quiet tree")
    return ProbeResult(result.key, None, message, "stale", result.seconds, result.stderr_tail)


def expected_tree_hash(root: Path, settings: SuiteSettings) -> str | None:
    if not settings.source_tree:
        return None
    return source_tree_hash(root / settings.source_tree)
