"""Where judgements and probe batches run: the executor settings (``local``, the default process pool
on this machine, or ``dask``, Dask ``distributed`` on a scheduler's workers) and the Dask side every
command shares: connecting (or starting a ``LocalCluster``), checking the workers before anything is
submitted (vtgate importable, the same vtgate version, the requested resources offered somewhere),
and submitting one task with resources. Callers hand it picklable functions and records; they never
learn whether a task ran in this process's pool or on a host across the room (docs/distributed.md).

``distributed`` is an optional dependency (the ``dask`` extra): it is imported only when the dask
executor is chosen."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import CancelledError
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vtgate.exitcodes import ExitCode

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

KINDS = ("local", "dask")
FALLBACKS = ("none", "local")  # what a run does when its scheduler is lost mid-run
SOURCES = ("bundle", "path")  # or any git URL / path the workers can reach
DEFAULT_BUNDLE_LIMIT_MB = 200.0
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_LOST_TIMEOUT = 30.0  # seconds a scheduler may stay unreachable mid-run (VT_DASK_LOST_TIMEOUT)
POLL_SECONDS = 0.25  # how often a wait for the scheduler to come back looks again
DONE_POLL_SECONDS = 0.05  # how often a wait looks whether its task is done (a local read, no round trip)
HEARTBEAT_SECONDS = 2.0  # how often a waiting client asks the scheduler who it is (one question at a time)
DEFAULT_ALLOWED_FAILURES = 2  # a LocalCluster task may kill this many workers before it is given up
LOST_TASK_RESUBMITS = 2  # a task the scheduler dropped on its own is submitted again this many times


class ExecutorError(Exception):
    """The executor cannot be set up as asked: a message with the fix and an exit code."""

    def __init__(self, message: str, exit_code: int = ExitCode.USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class SchedulerLost(ExecutorError):
    """The scheduler stopped answering mid-run and did not come back in time: nothing that was waiting
    on it is a result (exit 3, internal: the run could not finish)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.INTERNAL)


@dataclass(frozen=True)
class ExecutorSettings:
    """How to run: ``kind`` local or dask; for dask, the scheduler address (None: a LocalCluster of
    ``-j`` worker processes), the resources each task needs, how workers get the repository
    (``bundle``: a git bundle sent with the run; ``path``: this repository's path; anything else: a git
    URL or path the workers can reach), the bundle size limit and the connect timeout."""

    kind: str = "local"
    scheduler: str | None = None
    resources: Mapping[str, float] = field(default_factory=dict)
    source: str | None = None  # None: "path" on a LocalCluster, "bundle" with a scheduler
    bundle_limit_mb: float = DEFAULT_BUNDLE_LIMIT_MB
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    lost_timeout: float = DEFAULT_LOST_TIMEOUT  # a scheduler unreachable this long mid-run ends the run
    fallback: str = "none"  # "local": a scheduler lost mid-run hands the rest of the run to this machine
    worker_cache: str | None = None  # a LocalCluster's workers' cache folder (None: under the caller's cache)

    @property
    def repository_source(self) -> str:
        return self.source or ("path" if self.scheduler is None else "bundle")


def parse_resources(items: Sequence[str], where: str) -> dict[str, float]:
    """``["GPU=1", "MEM=2e9"]`` (or one ``"GPU=1,MEM=2"``) as {name: amount}."""
    out: dict[str, float] = {}
    for item in items:
        for part in item.split(","):
            part = part.strip()
            if not part:
                continue
            name, sep, amount = part.partition("=")
            try:
                value = float(amount)
            except ValueError:
                value = -1.0
            if not sep or not name.strip() or value <= 0:
                raise ExecutorError(f"{where}: resource {part!r} is not NAME=AMOUNT with a positive amount; "
                                    "fix: e.g. --resources GPU=1")
            out[name.strip()] = value
    return out


def project_table(root: Path) -> dict[str, Any]:
    """The ``[tool.vtgate.executor]`` table of ``root/pyproject.toml`` ({} when there is none)."""
    path = root / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ExecutorError(f"{path} cannot be read for [tool.vtgate.executor]: {error}") from None
    table = data.get("tool", {}).get("vtgate", {}).get("executor", {})
    if not isinstance(table, dict):
        raise ExecutorError(f"{path}: [tool.vtgate.executor] must be a table")
    return table


def _number(value: Any, name: str, where: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = -1.0
    if number <= 0:
        raise ExecutorError(f"{where}: {name} must be a positive number, got {value!r}")
    return number


def environment_settings() -> dict[str, str | None]:
    """The executor's variables as this process's environment sets them (docs/ENVIRONMENT.md)."""
    return {
        "VT_EXECUTOR": os.environ.get("VT_EXECUTOR"),
        "VT_DASK_SCHEDULER": os.environ.get("VT_DASK_SCHEDULER"),
        "VT_DASK_RESOURCES": os.environ.get("VT_DASK_RESOURCES"),
        "VT_DASK_SOURCE": os.environ.get("VT_DASK_SOURCE"),
        "VT_DASK_BUNDLE_LIMIT_MB": os.environ.get("VT_DASK_BUNDLE_LIMIT_MB"),
        "VT_DASK_CONNECT_TIMEOUT": os.environ.get("VT_DASK_CONNECT_TIMEOUT"),
        "VT_DASK_LOST_TIMEOUT": os.environ.get("VT_DASK_LOST_TIMEOUT"),
        "VT_DASK_FALLBACK": os.environ.get("VT_DASK_FALLBACK"),
        "VT_DASK_WORKER_CACHE": os.environ.get("VT_DASK_WORKER_CACHE"),
    }


def resolve_settings(
    executor: str | None, scheduler: str | None, resources: Sequence[str], env: Mapping[str, str | None],
    table: Mapping[str, Any], table_where: str = "[tool.vtgate.executor]", fallback: str | None = None,
) -> ExecutorSettings:
    """The settings from the command line, then ``env`` (``environment_settings()``), then
    the project's ``[tool.vtgate.executor]`` table. Naming a scheduler anywhere chooses dask."""
    unknown = sorted(set(table) - {"kind", "scheduler", "resources", "source", "bundle_limit_mb",
                                   "connect_timeout", "lost_timeout", "fallback"})
    if unknown:
        raise ExecutorError(f"{table_where}: unknown key(s) {', '.join(unknown)}; the table knows kind, scheduler, "
                            "resources, source, bundle_limit_mb, connect_timeout, lost_timeout, fallback")
    address = scheduler or env.get("VT_DASK_SCHEDULER") or table.get("scheduler") or None
    kind = executor or env.get("VT_EXECUTOR") or table.get("kind") or ("dask" if address else "local")
    if kind not in KINDS:
        raise ExecutorError(f"executor {kind!r} is not one of {', '.join(KINDS)}; fix: --executor local or "
                            "--executor dask")
    if kind == "local" and address:
        raise ExecutorError(f"a Dask scheduler ({address}) is named but the executor is local; fix: drop the "
                            "scheduler or use --executor dask")
    if resources:
        wanted = parse_resources(resources, "--resources")
    elif env.get("VT_DASK_RESOURCES"):
        wanted = parse_resources([str(env.get("VT_DASK_RESOURCES"))], "VT_DASK_RESOURCES")
    else:
        raw = table.get("resources", {})
        if not isinstance(raw, dict):
            raise ExecutorError(f"{table_where}: resources must be a table, e.g. resources = {{GPU = 1}}")
        wanted = {str(k): _number(v, f"resources.{k}", table_where) for k, v in raw.items()}
    if wanted and kind != "dask":
        if resources:
            raise ExecutorError("resources are Dask worker resources: they need --executor dask")
        wanted = {}  # VT_DASK_RESOURCES / the table's resources describe Dask runs: a local run leaves them alone
    limit = env.get("VT_DASK_BUNDLE_LIMIT_MB") or table.get("bundle_limit_mb") or DEFAULT_BUNDLE_LIMIT_MB
    timeout = env.get("VT_DASK_CONNECT_TIMEOUT") or table.get("connect_timeout") or DEFAULT_CONNECT_TIMEOUT
    lost = env.get("VT_DASK_LOST_TIMEOUT") or table.get("lost_timeout") or DEFAULT_LOST_TIMEOUT
    source = env.get("VT_DASK_SOURCE") or table.get("source") or None
    chosen_fallback = fallback or env.get("VT_DASK_FALLBACK") or table.get("fallback") or "none"
    if chosen_fallback not in FALLBACKS:
        raise ExecutorError(f"fallback {chosen_fallback!r} (--fallback / VT_DASK_FALLBACK / {table_where} fallback) "
                            f"is not one of {', '.join(FALLBACKS)}; fix: --fallback local or --fallback none")
    if chosen_fallback != "none" and kind != "dask":
        if fallback:
            raise ExecutorError("--fallback is what a Dask run does when its scheduler is lost: it needs --executor "
                                "dask")
        chosen_fallback = "none"  # VT_DASK_FALLBACK / the table's fallback: what Dask runs do; a local run has none
    return ExecutorSettings(
        kind=kind, scheduler=address, resources=wanted, source=source,
        bundle_limit_mb=_number(limit, "bundle_limit_mb (VT_DASK_BUNDLE_LIMIT_MB)", table_where),
        connect_timeout=_number(timeout, "connect_timeout (VT_DASK_CONNECT_TIMEOUT)", table_where),
        lost_timeout=_number(lost, "lost_timeout (VT_DASK_LOST_TIMEOUT)", table_where), fallback=chosen_fallback,
        worker_cache=env.get("VT_DASK_WORKER_CACHE") or None,
    )


# ---- the worker side -------------------------------------------------------------------------------

@dataclass(frozen=True)
class WorkerIdentity:
    """Who ran a task: for progress lines and the evidence."""

    host: str
    name: str
    address: str

    def __str__(self) -> str:
        return f"worker {self.name} on {self.host} ({self.address})"


class WorkerCacheError(Exception):
    """A worker cannot write its cache folder (read-only, full, not its own): a message naming both."""


def worker_cache() -> Path:
    """A worker's own cache folder: ``VT_DASK_WORKER_CACHE``, else ``~/.cache/vtgate/dask-worker``;
    made if missing and proved writable (else ``WorkerCacheError`` naming the worker and the folder)."""
    configured = os.environ.get("VT_DASK_WORKER_CACHE")
    folder = Path(configured) if configured else Path.home() / ".cache" / "vtgate" / "dask-worker"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".writable-"):
            pass
    except OSError as error:
        raise WorkerCacheError(
            f"{current_worker()} cannot write its cache folder {folder} ({error.strerror or error}); fix: make it "
            "writable, or point VT_DASK_WORKER_CACHE at a writable folder in that worker's environment") from None
    return folder


def child_ledger(cache: Path) -> Path:
    """The folder in a worker's cache where every child a task starts is noted (``proctree.note``):
    vtbisect's judges, vtgate check's probe runs and the runs of a mutant's gates. The children of a
    worker process killed under them (its nanny restarted it) run in their own sessions and outlive
    it: they are killed here first (``proctree.sweep_orphans``), by the next task on this host."""
    from vtgate.run.proctree import sweep_orphans

    ledger = cache / "children"
    sweep_orphans(ledger)
    return ledger


def current_worker() -> WorkerIdentity:
    """The identity of the Dask worker running the calling task (or this process, outside Dask)."""
    try:
        from distributed import get_worker

        worker = get_worker()
        return WorkerIdentity(socket.gethostname(), str(worker.name), str(worker.address))
    except (ImportError, ValueError):
        return WorkerIdentity(socket.gethostname(), f"pid {os.getpid()}", "local")


def worker_report(dask_worker: Any = None) -> dict[str, Any]:
    """Run on every worker before a run (``Client.run`` passes the worker as ``dask_worker``): what
    the client checks."""
    import vtgate

    name = str(dask_worker.name) if dask_worker is not None else current_worker().name
    return {"host": socket.gethostname(), "name": name, "vtgate": vtgate.__version__,
            "python": sys.executable, "git": shutil.which("git") or ""}


# ---- the client side -------------------------------------------------------------------------------

def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError as error:
        raise ExecutorError(f"--executor dask needs the 'distributed' package ({error}); fix: "
                            "pip install 'vtgate[dask]'") from None
    one_line_dask_logs()
    return distributed


class OneLineLogs(logging.Filter):
    """Folds a log record's traceback into its line: ``<message> (<exception type>: <text>)``.

    Dask's client logs a lost connection with its traceback (``distributed.batched`` at INFO, with
    ``exc_info``), in the middle of the command's own output, although the command then says what was
    lost and what to do. The record stays (its message, level and exception), only the stack goes."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if error is not None:
            record.msg = f"{record.getMessage()} ({type(error).__name__}: {error})"
            record.args = None
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        return True


def one_line_dask_logs() -> None:
    """Every handler Dask's logging configuration put on the ``distributed`` logger of this process
    gets a OneLineLogs filter (once); handlers a user's own logging configuration added elsewhere are
    theirs and untouched."""
    for handler in logging.getLogger("distributed").handlers:
        if not any(isinstance(existing, OneLineLogs) for existing in handler.filters):
            handler.addFilter(OneLineLogs())


class DaskExecutor:
    """A Dask client, connected to ``settings.scheduler`` or to a LocalCluster of ``workers``
    processes it starts; ``submit`` runs one picklable call with the settings' resources."""

    def __init__(self, settings: ExecutorSettings, workers: int, worker_env: Mapping[str, str] | None = None) -> None:
        distributed = _import_distributed()
        import dask

        self.settings = settings
        self.cluster: Any = None
        self._futures: set[Any] = set()
        self._health = threading.Lock()
        self._probed = 0.0  # when the scheduler was last asked (monotonic)
        self._unreachable_since: float | None = None
        self._lost: SchedulerLost | None = None
        self._scattered: dict[Any, list[Any]] = {}  # the first future's key -> [data, the future holding it now]
        self._workerless_since: float | None = None
        self.finished = 0  # tasks whose result came back (for the message when the scheduler is lost)
        if settings.scheduler is None:
            with dask.config.set({"distributed.scheduler.allowed-failures": DEFAULT_ALLOWED_FAILURES}):
                self.cluster = distributed.LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                    resources=dict(settings.resources) or None, silence_logs=40,
                    env=dict(worker_env or {}))
            self.address = str(self.cluster.scheduler_address)
            self.client = distributed.Client(self.cluster)
        else:
            self.address = settings.scheduler
            try:
                self.client = distributed.Client(settings.scheduler, timeout=settings.connect_timeout)
            except (OSError, TimeoutError) as error:
                raise ExecutorError(
                    f"cannot reach the Dask scheduler at {settings.scheduler} ({type(error).__name__}: {error}); "
                    "fix: start one there (dask scheduler --port PORT) or name the right address with --scheduler "
                    "/ VT_DASK_SCHEDULER / [tool.vtgate.executor] scheduler") from None

    def check_workers(self) -> dict[str, dict[str, Any]]:
        """Every worker imports vtgate at this client's version and has git, and some worker offers the
        resources asked for; else ExecutorError naming the worker and both versions."""
        import vtgate

        info = self.client.scheduler_info()
        if not info.get("workers"):
            self.client.wait_for_workers(1, timeout=self.settings.connect_timeout * 3)
            info = self.client.scheduler_info()
        reports = self.client.run(worker_report, on_error="return")
        for address, report in sorted(reports.items()):
            if isinstance(report, BaseException):
                raise ExecutorError(
                    f"worker {address} of the scheduler at {self.address} cannot run vtgate: its Python cannot import "
                    f"it ({type(report).__name__}: {report}); fix: install vtgate {vtgate.__version__} in the "
                    "worker's environment (pip install 'vtgate[dask]') and restart the worker")
            if report["vtgate"] != vtgate.__version__:
                raise ExecutorError(
                    f"worker {report['name']} on {report['host']} ({address}) runs vtgate {report['vtgate']}, this "
                    f"client runs vtgate {vtgate.__version__}: a verdict from another version is not comparable; fix: "
                    f"install vtgate {vtgate.__version__} on the worker (or this version's client)")
            if not report["git"]:
                raise ExecutorError(f"worker {report['name']} on {report['host']} ({address}) has no git on its "
                                    "PATH; fix: install git on the worker's host")
        self.require_resources(self.settings.resources)
        return {address: report for address, report in reports.items()}

    def resources_for(self, extra: Mapping[str, float] | None = None) -> dict[str, float]:
        """What one task needs: the run's ``--resources`` with ``extra`` (a gate's own) laid over them."""
        return {**self.settings.resources, **(extra or {})}

    def require_resources(self, wanted: Mapping[str, float], needed_by: str = "") -> None:
        """Some worker offers ``wanted``; else ExecutorError listing what each worker offers."""
        if not wanted:
            return
        offers = {addr: w.get("resources", {}) for addr, w in self.client.scheduler_info().get("workers", {}).items()}
        if any(all(have.get(k, 0) >= v for k, v in wanted.items()) for have in offers.values()):
            return
        shown = ", ".join(f"{k}={v:g}" for k, v in wanted.items())
        raise ExecutorError(
            f"no worker of the scheduler at {self.address} offers {shown}{needed_by} (workers offer: "
            + ("; ".join(f"{a} {dict(r) or 'nothing'}" for a, r in sorted(offers.items())) or "no workers")
            + f"); fix: start workers with dask worker {self.address} --resources "
            + ",".join(f"{k}={v:g}" for k, v in wanted.items()))

    def broadcast(self, data: Any) -> Any:
        """Send ``data`` to the workers once; the returned future stands for it in ``submit``. The data
        is kept: when every worker holding it died (a task cancelled for "lost dependencies"), ``wait``
        sends it again (``_rebroadcast``)."""
        future = self._scatter(data)
        self._scattered[future.key] = [data, future]
        return future

    def _scatter(self, data: Any) -> Any:
        try:
            return self.client.scatter(data, broadcast=True, hash=False, timeout=self.settings.lost_timeout)
        except (OSError, TimeoutError) as error:
            raise self._lost_error(f"no worker took the run's data within {self.settings.lost_timeout:g} s "
                                   f"({type(error).__name__}: {error})") from None

    def _rebroadcast(self) -> None:
        for entry in self._scattered.values():
            if entry[1].status != "finished":
                entry[1] = self._scatter(entry[0])

    def _current(self, args: Sequence[Any]) -> tuple[Any, ...]:
        """``args`` with every broadcast future replaced by the one that holds its data now."""
        return tuple(self._scattered[a.key][1] if getattr(a, "key", None) in self._scattered else a for a in args)

    def submit(self, function: Any, *args: Any, resources: Mapping[str, float] | None = None) -> Any:
        """Run ``function(*args)`` on a worker offering ``resources`` (default: the run's ``--resources``)."""
        wanted = dict(self.settings.resources) if resources is None else dict(resources)
        future = self.client.submit(function, *args, pure=False, resources=wanted or None)
        self._futures.add(future)
        return future

    def wait(self, function: Any, *args: Any, resources: Mapping[str, float] | None = None,
             stopped: Callable[[], bool] = lambda: False) -> Any:
        """``submit`` and wait for the result, never longer than the scheduler stays reachable: the wait
        looks at ``stopped()`` and the scheduler's health every ``DONE_POLL_SECONDS`` and raises
        ``SchedulerLost`` once it has been unreachable past the deadline (``check_alive``). A task the
        scheduler dropped without being asked (cancelled as "already forgotten" while a worker died under
        it; "lost dependencies" when every worker holding its broadcast data died, which is then sent
        again; "scheduler-connection-lost" when the client reconnected in time) is submitted again, in
        all at most ``LOST_TASK_RESUBMITS`` times; a cancellation the caller made (``stopped()``) is
        raised at once."""
        from distributed import TimeoutError as DaskTimeout

        for attempt in range(LOST_TASK_RESUBMITS + 1):
            self.check_alive()
            if stopped():
                raise CancelledError("the run was cancelled")
            try:
                future = self.submit(function, *self._current(args), resources=resources)
            except Exception:
                if self.client.status == "running":
                    raise
                self._wait_for_scheduler()  # the client is reconnecting, or gave up (SchedulerLost)
                continue
            try:
                while True:
                    # done() is read locally; polling result(timeout=...) instead loses a race in Dask's
                    # sync(): a timeout that fires as the task finishes escapes as an UnboundLocalError
                    # (dask/distributed#8514, seen here as a bisection's "internal error")
                    if not future.done():
                        time.sleep(DONE_POLL_SECONDS)
                        if stopped():
                            raise CancelledError("the run was cancelled")
                        self.check_alive()
                        continue
                    try:  # done: the result is fetched from its worker, bounded like every wait
                        result = future.result(timeout=self.settings.lost_timeout)
                    except (DaskTimeout, TimeoutError, UnboundLocalError):  # the same race, at this bound
                        if stopped():
                            raise CancelledError("the run was cancelled") from None
                        self.check_alive()
                        continue
                    self.finished += 1
                    return result
            except CancelledError as error:
                if stopped():
                    raise
                if getattr(error, "reason", "") == "scheduler-connection-lost":
                    self._wait_for_scheduler()  # back within the deadline (else SchedulerLost): submit again
                    continue
                if getattr(error, "reason", "") == "lost dependencies" and attempt < LOST_TASK_RESUBMITS:
                    self._rebroadcast()  # every worker holding the run's data died: send it again
                    continue
                if attempt == LOST_TASK_RESUBMITS:
                    raise
            finally:
                self.forget(future)
        raise CancelledError("the scheduler dropped the task every time it was submitted")

    def _wait_for_scheduler(self) -> None:
        """The client lost its connection: wait (bounded by ``check_alive``) until it is back or lost."""
        while True:
            self.check_alive()
            if self.client.status == "running" and self._unreachable_since is None:
                return
            time.sleep(POLL_SECONDS)

    def check_alive(self) -> None:
        """Raise ``SchedulerLost`` when the cluster cannot finish the run: the client closed after failing
        to reconnect (it tries for ``connect_timeout`` seconds), the scheduler did not answer a question
        for ``lost_timeout`` seconds (a network that drops packets closes nothing), or it has had no
        worker for ``lost_timeout`` seconds (every host died).
        Asked from every waiting thread; one question to the scheduler at a time, at most every
        ``HEARTBEAT_SECONDS``, each bounded."""
        if self._lost is not None:
            raise self._lost
        with self._health:
            if self._lost is not None:
                raise self._lost
            now = time.monotonic()
            status = str(getattr(self.client, "status", "running"))
            if status in ("closing", "closed", "failed"):
                self._lost = self._lost_error(f"the Dask client closed its connection ({status}) after failing "
                                              f"to reconnect for {self.settings.connect_timeout:g} s")
            elif now - self._probed >= HEARTBEAT_SECONDS:
                self._probed = now
                workers = self._workers()
                if workers is not None:
                    self._unreachable_since = None
                elif self._unreachable_since is None:
                    self._unreachable_since = now
                if workers == 0 and self._workerless_since is None:
                    self._workerless_since = now
                elif workers:
                    self._workerless_since = None
                self._probed = time.monotonic()
            if self._lost is None and self._workerless_since is not None:
                alone = time.monotonic() - self._workerless_since
                if alone > self.settings.lost_timeout:
                    self._lost = self._lost_error(f"it has had no worker for {alone:.0f} s (VT_DASK_LOST_TIMEOUT "
                                                  f"{self.settings.lost_timeout:g} s): its hosts died or left")
            if self._lost is None and self._unreachable_since is not None:
                silent = time.monotonic() - self._unreachable_since
                if silent > self.settings.lost_timeout:
                    self._lost = self._lost_error(f"it has not answered for {silent:.0f} s (VT_DASK_LOST_TIMEOUT "
                                                  f"{self.settings.lost_timeout:g} s)")
            if self._lost is not None:
                raise self._lost

    def _workers(self) -> int | None:
        """How many workers the scheduler has, or None when it does not answer (bounded)."""
        if self.client.status != "running":
            return None
        try:
            identity = self.client.sync(self.client.scheduler.identity, n_workers=0,
                                        callback_timeout=HEARTBEAT_SECONDS)
        except Exception:  # noqa: BLE001 - any failure to answer is "not answering"
            return None
        return int(identity.get("n_workers", 1))

    def _lost_error(self, how: str) -> SchedulerLost:
        return SchedulerLost(f"the Dask cluster of the scheduler at {self.address} was lost mid-run: {how}; nothing "
                             "it was running is a result; fix: restart the scheduler and its workers and re-run, "
                             "raise VT_DASK_LOST_TIMEOUT / VT_DASK_CONNECT_TIMEOUT for a slow network, or add --fallback "
                             "local to finish on this machine")

    def forget(self, future: Any) -> None:
        """``future`` is done and read: nothing to cancel on the way out."""
        self._futures.discard(future)

    def cancel_all(self) -> None:
        """Cancel every task not finished (Ctrl-C, abort): nothing runs on after the client leaves."""
        pending = [f for f in self._futures if not f.done()]
        if pending:
            with contextlib.suppress(Exception):  # on the way out; the client closes next
                self.client.cancel(pending, force=True)
        self._futures.clear()

    def close(self) -> None:
        """Cancel what runs and close the client (and a LocalCluster), bounded: a lost scheduler is not
        waited for."""
        self.cancel_all()
        try:
            with contextlib.suppress(Exception):  # a lost scheduler: closing tells it nothing
                self.client.close(timeout=2 if self._lost is not None else 10)
        finally:
            if self.cluster is not None:
                self.cluster.close(timeout=10)


def is_killed_worker(error: BaseException) -> bool:
    """A task that took down every worker it was tried on (Dask gave up on it)."""
    return type(error).__name__ == "KilledWorker"
