"""``vtgate mutate --code --executor dask``: code mutants judged by the workers of a Dask cluster.

The client plans as it does locally (baseline, coverage, the patched copy whose tree hash keys the
verdict cache) and, on a cache miss, sends the mutant instead of judging it: its diff, the tree hash
the patched copy must have, the gates that reach it (cheapest first), their pins and the caller's
ambient knobs. Two archives travel once per run, content-addressed: the base tree (the files of the
tree under test as a mutant copy holds them, uncommitted edits and ``[suite] artifacts`` included;
at most ``bundle_limit_mb``) and the oracle (the suite file and its goldens). The worker unpacks them
into its own cache folder, checks that the base hashes as the client's tree does, builds the patched
copy there, checks its hash against the client's, runs the gates with ``coderun.judge_copy`` (first
red stops: the same function a local run uses) and returns the gates run, their results and who it
is. The client refuses a result for another tree; the verdict goes into the same code-mutant cache a
local run reads. A worker that dies mid-judgement has its task rerun elsewhere by the scheduler;
only a finished judgement is ever a verdict. A scheduler lost mid-run makes every mutant not yet
judged an error naming it, or, with ``--fallback local``, hands them to this machine: the client
judges the copy it already made, as a local run does."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import itertools
import os
import shutil
import tarfile
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vtgate.errors import GateError
from vtgate.mutate.copies import PatchError, apply_patch, copy_tree, link_artifacts, project_files, selected
from vtgate.mutate.judgecopy import CodeScope, Status, judge_copy, tree_identity
from vtgate.output import say
from vtgate.run.execute import AmbientEnv, SharedRuns
from vtgate.run.executor import (
    DaskExecutor,
    ExecutorError,
    ExecutorSettings,
    SchedulerLost,
    WorkerIdentity,
    child_ledger,
    current_worker,
    is_killed_worker,
    worker_cache,
)
from vtgate.suite.goldens import golden_files
from vtgate.suite.records import GateSpec, Suite

if TYPE_CHECKING:
    from vtgate.mutate.codemutants import CodeMutant
    from vtgate.run.check import GateResult

    Judged = tuple[Status, str | None, str] | None  # (status, killing gate, detail): what judge_copy returns


@dataclass(frozen=True)
class Archive:
    """Files packed once per run for the workers: the sha256 of the bytes names the worker's copy."""

    digest: str
    data: bytes


@dataclass(frozen=True)
class MutantTask:
    """One mutant as it travels: the worker needs nothing of the client's checkout."""

    vtgate: str
    ident: str
    digest: str
    diff: str
    tree: str  # the patched copy's tree hash on the client (the verdict cache's key)
    base: str  # the base archive's digest
    base_tree: str  # the unpatched tree's hash on the client
    oracle: str  # the oracle archive's digest
    artifacts: tuple[str, ...]  # paths in the base to hard-link, not copy, into each patched copy
    suite: Suite
    scope: CodeScope
    gates: tuple[str, ...]  # the reaching gates, cheapest first
    pins: Mapping[str, Any]
    ambient: AmbientEnv


@dataclass(frozen=True)
class MutantResult:
    """What a worker returns: who it was, the tree hash of the copy it built, and the judgement, or why
    it refused to judge (``refused``)."""

    worker: WorkerIdentity
    tree: str
    judged: Judged = None
    ran: tuple[str, ...] = ()
    results: Mapping[str, GateResult] = dataclasses.field(default_factory=dict)
    refused: str | None = None


# ---- the worker side -------------------------------------------------------------------------------

_counter = itertools.count()
_verified: set[tuple[str, str]] = set()  # (base folder, tree hash) this worker process has checked
_unpack_lock = threading.Lock()


def _unpacked(folder: Path, data: bytes) -> Path:
    """``data`` (a tar) unpacked into ``folder`` once; other tasks of the worker reuse it."""
    with _unpack_lock:
        if folder.is_dir():
            return folder
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            archive.extractall(staging, filter="tar")
        try:
            os.replace(staging, folder)
        except OSError:  # another worker process sharing this cache unpacked it first
            shutil.rmtree(staging, ignore_errors=True)
    return folder


def rebased(suite: Suite, folder: Path) -> Suite:
    """``suite`` with its file and goldens read from ``folder`` (the oracle as the worker unpacked it)."""

    def moved(path: Path) -> Path:
        return folder / path.relative_to(suite.root)

    gates = tuple(dataclasses.replace(spec, golden=moved(spec.golden) if spec.golden else None,
                                      source=moved(spec.source)) for spec in suite.gates)
    return dataclasses.replace(suite, path=moved(suite.path), root=folder, gates=gates)


def _patched_copy(base: Path, copy: Path, artifacts: Sequence[str], task: MutantTask) -> None:
    linked = set(artifacts)

    def place(source: str, target: str) -> None:
        if Path(source).relative_to(base).as_posix() in linked:
            try:
                os.link(source, target)
                return
            except OSError:
                pass
        shutil.copy2(source, target)

    shutil.copytree(base, copy, symlinks=True, copy_function=place)
    patch = copy.with_name(copy.name + ".patch")
    patch.write_text(task.diff, encoding="utf-8")
    try:
        apply_patch(copy, patch, task.ident)
    finally:
        patch.unlink(missing_ok=True)


def judge_mutant_on_worker(task: MutantTask, base: bytes, oracle: bytes) -> MutantResult:
    """Run on a Dask worker: unpack the base and the oracle (once), build the patched copy, check both
    trees' hashes against the client's, run the reaching gates (first red stops)."""
    import vtgate

    who = current_worker()
    if vtgate.__version__ != task.vtgate:
        return MutantResult(who, "", refused=f"{who} runs vtgate {vtgate.__version__}, the client vtgate "
                            f"{task.vtgate}; fix: install the same vtgate version on both")
    cache = worker_cache() / "mutants"
    ledger = child_ledger(cache.parent)  # first: the runs of a worker process killed here before are killed
    base_dir = _unpacked(cache / "bases" / task.base, base)
    suite = rebased(task.suite, _unpacked(cache / "oracles" / task.oracle, oracle))
    if (str(base_dir), task.base_tree) not in _verified:
        found = tree_identity(base_dir, suite, task.scope)
        if found != task.base_tree:
            return MutantResult(who, "", refused=f"{who} unpacked a base tree hashing {found[:12]}, the client's "
                                f"hashes {task.base_tree[:12]}; fix: clear the worker's cache folder "
                                "(VT_DASK_WORKER_CACHE) and re-run")
        _verified.add((str(base_dir), task.base_tree))
    copy = cache / "copies" / f"m-{task.digest}-{os.getpid()}-{next(_counter)}"
    copy.parent.mkdir(parents=True, exist_ok=True)
    try:
        try:
            _patched_copy(base_dir, copy, task.artifacts, task)
        except PatchError as error:
            return MutantResult(who, "", refused=f"{who}: {error}")
        tree = tree_identity(copy, suite, task.scope)
        if tree != task.tree:
            return MutantResult(who, tree)  # the client refuses it, naming both hashes
        ambient = {} if task.ambient.isolated else dict(task.ambient.values)  # the caller's knobs reach the runs
        ran: list[str] = []
        results: dict[str, GateResult] = {}
        with SharedRuns(suite.settings, 1, ambient=task.ambient) as shared:
            shared.children.ledger = ledger  # a worker process killed under the runs leaves a trace
            judged = judge_copy([suite.gate(name) for name in task.gates], suite, copy, shared, task.pins,
                                {**ambient, **task.scope.env_for(copy)}, ran, results)
        return MutantResult(who, tree, judged, tuple(ran), results)
    finally:
        shutil.rmtree(copy, ignore_errors=True)


# ---- the client side -------------------------------------------------------------------------------

def _tar(folder: Path, what: str, limit_mb: float, fix: str) -> Archive:
    size_mb = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()) / 1e6
    if size_mb > limit_mb:
        raise ExecutorError(f"{what} is {size_mb:.1f} MB, over the limit of {limit_mb:g} MB for what travels to the "
                            f"Dask workers (VT_DASK_BUNDLE_LIMIT_MB / [tool.vtgate.executor] bundle_limit_mb); fix: {fix}")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as archive:
        archive.add(folder, arcname=".")
    data = buffer.getvalue()
    return Archive(hashlib.sha256(data).hexdigest(), data)


def pack_base(root: Path, suite: Suite, scope: CodeScope, limit_mb: float) -> tuple[Archive, str, tuple[str, ...]]:
    """The tree under test as a mutant copy holds it (git's files, uncommitted edits included, only
    those under ``[mutate.code] copy`` when it is set, and ``[suite] artifacts``), its tree hash, and
    the artifact paths in it."""

    with tempfile.TemporaryDirectory(prefix="vtgate-dask-base-") as scratch:
        staged = Path(scratch) / "base"
        staged.mkdir()
        copy_tree(root, staged, selected(project_files(root), scope.copy))
        before = {p.relative_to(staged).as_posix() for p in staged.rglob("*") if p.is_file()}
        if suite.settings.artifacts:
            link_artifacts(root, suite.settings.artifacts, staged)
        artifacts = tuple(sorted({p.relative_to(staged).as_posix() for p in staged.rglob("*") if p.is_file()} - before))
        tree = tree_identity(staged, suite, scope)
        archive = _tar(staged, f"the tree under test ({root}, with its [suite] artifacts)", limit_mb,
                       "raise the limit, or leave big untracked files out of the tree (.gitignore)")
    return archive, tree, artifacts


def pack_oracle(suite: Suite, limit_mb: float) -> Archive:
    """The suite file and every golden it reads (the gates' and those under ``[suite] goldens``)."""
    files = {suite.path, *(spec.golden for spec in suite.gates if spec.golden is not None and spec.golden.is_file()),
             *golden_files(suite.root / suite.settings.goldens)}
    with tempfile.TemporaryDirectory(prefix="vtgate-dask-oracle-") as scratch:
        for path in sorted(files):
            try:
                relative = path.resolve().relative_to(suite.root.resolve())
            except ValueError:
                raise ExecutorError(f"{path} is outside the suite's project {suite.root}: on a Dask cluster the suite's "
                                    "files travel from the project; fix: move it under the project") from None
            target = Path(scratch) / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        return _tar(Path(scratch), f"the suite and its goldens ({suite.root})", limit_mb, "raise the limit")


class RemoteMutants:
    """What ``run_code_mutants`` calls instead of judging a mutant's copy itself."""

    def __init__(self, executor: DaskExecutor, suite: Suite, scope: CodeScope, ambient: AmbientEnv,
                 base: Archive, base_tree: str, artifacts: tuple[str, ...], oracle: Archive) -> None:
        import vtgate

        self.executor, self.suite, self.scope, self.ambient = executor, suite, scope, ambient
        self.base, self.base_tree, self.artifacts, self.oracle = base, base_tree, artifacts, oracle
        self.base_data = executor.broadcast(base.data)  # sent to each worker once
        self.oracle_data = executor.broadcast(oracle.data)
        self.version = vtgate.__version__
        self.cancelled = False
        self.here = False  # the scheduler was lost and --fallback local: judge on this machine from now on
        self.lost: SchedulerLost | None = None  # the first loss of the scheduler, if any
        self._lock = threading.Lock()

    def resources(self, reaching: Sequence[GateSpec]) -> dict[str, float]:
        """The run's ``--resources`` with the largest amount any reaching gate asks for laid over them."""
        wanted: dict[str, float] = {}
        for spec in reaching:
            for name, amount in spec.resources.items():
                wanted[name] = max(wanted.get(name, 0.0), amount)
        return self.executor.resources_for(wanted)

    def judge(self, mutant: CodeMutant, tree: str, reaching: Sequence[GateSpec],
              pins: Mapping[str, Mapping[str, Any] | GateError], ran: list[str],
              results: dict[str, GateResult]) -> tuple[Judged, str] | None:
        """Judge ``mutant`` on a worker: (what ``judge_copy`` returns, who judged it); ``ran`` and
        ``results`` get what ran there. A result for another tree, or from no finished run, is an error.
        None: the scheduler is lost and the run falls back to this machine (the caller judges the copy)."""
        if self.here:
            return None
        task = MutantTask(self.version, mutant.ident, mutant.digest, mutant.diff, tree, self.base.digest,
                          self.base_tree, self.oracle.digest, self.artifacts, self.suite, self.scope,
                          tuple(spec.name for spec in reaching), {spec.name: pins[spec.name] for spec in reaching},
                          self.ambient)
        try:
            result: MutantResult = self.executor.wait(judge_mutant_on_worker, task, self.base_data, self.oracle_data,
                                                      resources=self.resources(reaching), stopped=lambda: self.cancelled)
        except SchedulerLost as lost:
            if self.cancelled:
                raise
            self.lost = self.lost or lost
            if self.executor.settings.fallback != "local":
                return ("error", None, f"it could not be judged on the Dask cluster: {lost}"), ""
            self._fall_back(lost)
            return None
        except BaseException as error:  # Dask's CancelledError is a BaseException
            if self.cancelled or not isinstance(error, Exception):
                raise
            if is_killed_worker(error):
                return ("error", None, f"its judgement took down every worker it was tried on ({error}); it is not a "
                        "verdict: look at the workers' logs"), ""
            return ("error", None, f"it could not be judged on the Dask cluster: {type(error).__name__}: {error}"), ""
        who = str(result.worker)
        if result.refused is not None:
            return ("error", None, result.refused), who
        if result.tree != tree:
            return ("error", None, f"{who} built a copy hashing {result.tree[:12]} for mutant {mutant.ident}, whose "
                    f"tree hashes {tree[:12]} here: its result is refused; fix: clear the worker's cache folder "
                    "(VT_DASK_WORKER_CACHE) and re-run"), who
        ran.extend(result.ran)
        results.update(result.results)
        return result.judged, who

    def _fall_back(self, lost: SchedulerLost) -> None:
        with self._lock:
            if self.here:
                return
            self.here = True
        say(("note:", "yellow"), f" {lost}; the remaining mutants are judged on this machine (--fallback local)")

    def cancel(self) -> None:
        """Cancel every unfinished judgement (Ctrl-C, an abort): nothing runs on after the client leaves."""
        self.cancelled = True
        self.executor.cancel_all()


@contextlib.contextmanager
def remote_mutants(settings: ExecutorSettings | None, suite: Suite, scope: CodeScope, root: Path,
                   shared: SharedRuns, gates: Sequence[GateSpec]) -> Iterator[RemoteMutants | None]:
    """The mutants' judge on the executor ``settings`` names: None for local (judge here); for dask, a
    connected ``RemoteMutants`` with the workers checked (the run's resources and those of every gate in
    ``gates``) and the archives sent. On the way out every unfinished judgement is cancelled, the client
    closed and a LocalCluster's cache folder removed."""
    if settings is None or settings.kind == "local":
        yield None
        return
    base, base_tree, artifacts = pack_base(root, suite, scope, settings.bundle_limit_mb)  # too big: no cluster
    oracle = pack_oracle(suite, settings.bundle_limit_mb)
    local_cache = None
    if settings.scheduler is None and settings.worker_cache is None:
        local_cache = Path(tempfile.mkdtemp(prefix="vtgate-dask-workers-"))
    worker_env = {"VT_DASK_WORKER_CACHE": str(local_cache or settings.worker_cache)} if settings.scheduler is None else {}
    executor = DaskExecutor(settings, shared.jobs, worker_env)
    remote: RemoteMutants | None = None
    try:
        executor.check_workers()
        for spec in gates:
            if spec.resources:
                executor.require_resources(executor.resources_for(spec.resources), f", which gate {spec.name} needs")
        remote = RemoteMutants(executor, suite, scope, shared.ambient, base, base_tree, artifacts, oracle)
        yield remote
    finally:
        if remote is not None:
            remote.cancel()
        try:
            executor.close()
        finally:
            if local_cache is not None:
                shutil.rmtree(local_cache, ignore_errors=True)

