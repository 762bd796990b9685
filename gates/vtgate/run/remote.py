"""``vtgate check --executor dask``: the probe layer's distinct runs (``SharedRuns``) executed by Dask
workers instead of this machine's pool. Planning, the stale guard and judging stay here; a run
travels as its ``ProbeKey`` (probe, args, env, root), the suite settings, the timeout and the ambient
knobs that reach it, and comes back as the same ``ProbeResult`` a local run gives.

The tree under test is read by path: the workers must see ``--root`` at the same path (a LocalCluster,
or a filesystem the hosts share); before any run, every worker is asked whether it sees it
(``require_tree``), and a worker that does not is refused naming it and the path. Each worker hashes the suite's ``source_tree`` under the root before
running and refuses to run a tree that is not the one the client planned (the client's stale guard
also checks every observation's ``meta.source_tree_hash``)."""

from __future__ import annotations

import contextlib
import dataclasses
import socket
import threading
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import CancelledError
from pathlib import Path
from typing import Any

from vtgate.output import say
from vtgate.run.execute import ProbeKey, ProbeResult, SharedRuns, expected_tree_hash, run_one
from vtgate.run.executor import (
    DaskExecutor,
    ExecutorError,
    ExecutorSettings,
    SchedulerLost,
    WorkerCacheError,
    child_ledger,
    current_worker,
    worker_cache,
)
from vtgate.run.proctree import ChildProcesses
from vtgate.suite.records import SuiteSettings
from vtgate.treehash import source_tree_hash


def probe_on_worker(key: ProbeKey, settings: SuiteSettings, timeout: float, reaching: dict[str, str],
                    expected_hash: str | None) -> ProbeResult:
    """Run on a Dask worker: one probe run under ``key.root``, with the ambient knobs that reach it; its
    processes are noted in the worker's child ledger, so a worker process killed under them leaves a
    trace and the next task on this host kills them (``child_ledger``)."""
    children = ChildProcesses()
    try:
        children.ledger = child_ledger(worker_cache())
    except WorkerCacheError as error:
        return ProbeResult(key, None, str(error), "probe", 0.0)
    return probe_here(key, settings, timeout, reaching, expected_hash, children)


def probe_here(key: ProbeKey, settings: SuiteSettings, timeout: float, reaching: dict[str, str],
               expected_hash: str | None, children: ChildProcesses) -> ProbeResult:
    """One probe run under ``key.root`` on this machine (a worker's task, or a lost scheduler's run
    with ``--fallback local``), its processes started by ``children``."""
    who = current_worker()
    root = Path(key.root)
    if not root.is_dir():
        return ProbeResult(key, None, f"{who} has no {root}: on a Dask cluster the tree under test must be at the "
                           "same path on every worker (a LocalCluster, or a shared filesystem)", "probe", 0.0)
    if expected_hash is not None and settings.source_tree:
        found = source_tree_hash(root / settings.source_tree)
        if found != expected_hash:
            return ProbeResult(key, None, f"stale guard: {who} sees {settings.source_tree} under {root} hashing "
                               f"{found[:12]}…, the client planned {expected_hash[:12]}…; the workers must see the "
                               "same tree", "stale", 0.0)
    own = dict(key.env)
    travelled = dataclasses.replace(key, env=tuple(sorted({**reaching, **own}.items())))
    result = run_one(travelled, root, settings, timeout, children=children)
    return dataclasses.replace(result, key=key)


class RemoteRuns:
    """What ``SharedRuns`` calls instead of running a probe itself (``SharedRuns.remote``)."""

    def __init__(self, executor: DaskExecutor, gate_resources: Mapping[str, Mapping[str, float]] | None = None) -> None:
        self.executor = executor
        self.cancelled = False
        self.gate_resources = dict(gate_resources or {})
        self._hashes: dict[tuple[str, str | None], str | None] = {}
        self._lock = threading.Lock()
        self._told = False

    def resources(self, gates: Sequence[str]) -> dict[str, float]:
        """What a run needs: the run's ``--resources`` with the resources of every gate that requested
        it laid over them (the largest amount of each)."""
        wanted: dict[str, float] = {}
        for gate in gates:
            for name, amount in self.gate_resources.get(gate, {}).items():
                wanted[name] = max(wanted.get(name, 0.0), amount)
        return self.executor.resources_for(wanted)

    def run(self, key: ProbeKey, timeout: float, shared: SharedRuns) -> ProbeResult:
        root = Path(key.root)
        cached = (key.root, shared.settings.source_tree)
        if cached not in self._hashes:
            self._hashes[cached] = expected_tree_hash(root, shared.settings)
        args = (key, shared.settings, timeout, shared.ambient.reaching(key), self._hashes[cached])
        try:
            result: ProbeResult = self.executor.wait(probe_on_worker, *args,
                                                     resources=self.resources(shared.gates.get(key, [])),
                                                     stopped=lambda: self.cancelled)
            return result
        except SchedulerLost as lost:
            if self.executor.settings.fallback == "local" and not self.cancelled:
                self._tell_fallback(lost)
                return probe_here(*args, shared.children)  # the same run, on this machine (Ctrl-C kills it)
            return ProbeResult(key, None, str(lost), "probe", 0.0)
        except CancelledError:
            if self.cancelled:
                return ProbeResult(key, None, "the check was cancelled", "probe", 0.0)
            return ProbeResult(key, None, f"probe {key.probe} could not run on the Dask cluster: the scheduler "
                               "dropped it every time it was submitted", "probe", 0.0)
        except Exception as error:  # noqa: BLE001 - a worker's failure is a run that could not happen
            return ProbeResult(key, None, f"probe {key.probe} could not run on the Dask cluster: "
                               f"{type(error).__name__}: {error}", "probe", 0.0)

    def _tell_fallback(self, lost: SchedulerLost) -> None:
        with self._lock:
            if self._told:
                return
            self._told = True
        say(("note:", "yellow"), f" {lost}; the remaining probe runs run on this machine (--fallback local)")

    def cancel(self) -> None:
        self.cancelled = True
        self.executor.cancel_all()


def tree_on_worker(root: str, source_tree: str | None, dask_worker: Any = None) -> dict[str, Any]:
    """Run on every worker before a check (``Client.run``): does it see ``root``, and which source tree."""
    path = Path(root)
    seen = path.is_dir() and (not source_tree or (path / source_tree).exists())
    return {"name": str(dask_worker.name) if dask_worker is not None else current_worker().name,
            "host": socket.gethostname(), "root": seen,
            "hash": source_tree_hash(path / source_tree) if seen and source_tree else None}


def require_tree(executor: DaskExecutor, root: Path, settings: SuiteSettings) -> None:
    """Every worker sees the tree under test at ``root`` with the same source tree as this client (the
    probes read it by path); else ExecutorError naming the worker and the missing path, before any run."""
    expected = expected_tree_hash(root, settings)
    reports = executor.client.run(tree_on_worker, str(root), settings.source_tree, on_error="return")
    for address, report in sorted(reports.items()):
        if isinstance(report, BaseException):
            raise ExecutorError(f"worker {address} could not look for {root}: {type(report).__name__}: {report}")
        who = f"worker {report['name']} on {report['host']} ({address})"
        if not report["root"]:
            missing = root / settings.source_tree if settings.source_tree else root
            raise ExecutorError(
                f"{who} has no {missing}, the tree under test: vtgate check --executor dask runs the probes on the "
                "tree at the same path on every worker; fix: put the tree at that path on every worker (a shared "
                "filesystem), or run on a LocalCluster (--executor dask without --scheduler) or this machine "
                "(--executor local)")
        if expected is not None and report["hash"] != expected:
            raise ExecutorError(
                f"{who} sees another {settings.source_tree} under {root} (hash {str(report['hash'])[:12]}…, here "
                f"{expected[:12]}…): its probes would not run this tree; fix: give every worker the same tree at "
                "that path")


@contextlib.contextmanager
def attached(settings: ExecutorSettings | None, shared: SharedRuns,
             gate_resources: Mapping[str, Mapping[str, float]] | None = None, root: Path | None = None,
             ) -> Iterator[Any]:
    """Run ``shared``'s probe runs on the executor ``settings`` names (nothing to do for local);
    ``gate_resources``: gate name -> the resources its runs need besides the run's own."""
    if settings is None or settings.kind == "local":
        yield None
        return
    executor = DaskExecutor(settings, shared.jobs)
    try:
        executor.check_workers()
        if root is not None:
            require_tree(executor, root, shared.settings)
        for gate, wanted in sorted((gate_resources or {}).items()):
            executor.require_resources(executor.resources_for(wanted), f", which gate {gate} needs")
        remote = RemoteRuns(executor, gate_resources)
        shared.remote = remote
        try:
            yield remote
        finally:
            remote.cancel()
            shared.remote = None
    finally:
        executor.close()
