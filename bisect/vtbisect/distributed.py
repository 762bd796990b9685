"""vtbisect's judgements on a Dask cluster (``vtbisect run --executor dask``).

The driver is unchanged: it leases a slot, prepares the candidate and judges it, through a pool and a
runner. Here the pool (``RemotePool``) sends each preparation to a worker as a ``JudgementTask`` (the
commit, its tree id, the reverts, how the worker reaches the repository, the judge with the knobs of
the verdict's cache key) and the runner (``RemoteRunner``) hands back what the worker judged. On the
worker, ``judge_on_worker`` fetches the commit into its own mirror (from a git bundle sent with the
run, or a repository path or URL it can reach), checks it out in a worktree in its own cache folder
with vtbisect's ``WorktreePool`` (clean, verified), runs the judge and returns the judgement, the
tree id it checked out and its identity. The client refuses a judgement whose tree id is not the
commit's. Verdicts go into the same verdict cache as local ones (same keys), one by one as they
arrive, so an interrupted run resumes. A worker that dies mid-judgement has its task rerun by the
scheduler on another worker (bounded by Dask's ``allowed-failures``); a judgement is only ever the
result of a run that finished."""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import hashlib
import io
import os
import shutil
import socket
import sys
import tarfile
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import CancelledError
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from filelock import FileLock
from vtgate.exitcodes import ExitCode
from vtgate.run.executor import (
    DaskExecutor,
    ExecutorError,
    ExecutorSettings,
    WorkerCacheError,
    WorkerIdentity,
    child_ledger,
    current_worker,
    is_killed_worker,
    worker_cache,
)

from vtbisect.cache import verdict_env
from vtbisect.gitrepo import git_available, run_git
from vtbisect.judges import CommandRunner, GateRunner, JudgeAbort, Judgement, Runner, note_children_in
from vtbisect.revisions import tree_of
from vtbisect.worktrees import Prepared, RevertConflict, WorktreePool

SLOTS_PER_WORKER = 16  # worktrees are made on first use: as many as tasks a worker runs at once


class WorkerSetupError(Exception):
    """A worker cannot judge (no git, no repository, a judge file missing): a message naming the worker."""


@dataclass(frozen=True)
class RepositorySource:
    """How a worker gets the candidates: ``kind`` "bundle" (``location``: the bundle's sha256; the bytes
    travel with the run) or "repository" (``location``: a path or URL the worker fetches from). ``mirror`` names
    the worker's mirror folder, the same for every run on one repository, so fetched history is reused."""

    kind: str
    location: str
    mirror: str


@dataclass(frozen=True)
class JudgementTask:
    """One judgement as it travels: the worker needs nothing of the client's checkout."""

    commit: str
    tree: str
    reverts: tuple[str, ...]
    source: RepositorySource
    runner: Runner  # the judge, with ``env`` cut down to the knobs of the cache key
    env: Mapping[str, str]  # the knobs of the cache key, laid over the worker's own environment
    judge_files: Mapping[str, str]  # files outside the worktree the judge reads: path -> sha256
    vtgate: str  # the client's vtgate version
    oracle: tuple[str, str] | None = None  # gate mode: (oracle folder name, the suite's path inside it)


@dataclass(frozen=True)
class RemoteResult:
    """What a worker returns: the judgement (or a revert conflict, or an abort), the tree id it checked
    out, and who it was."""

    worker: WorkerIdentity
    tree: str
    judgement: Judgement | None = None
    conflict: tuple[str, str] | None = None  # (commit, detail)
    abort: tuple[str, int] | None = None  # (message, exit code)


# ---- the worker side -------------------------------------------------------------------------------

_pools: dict[Path, WorktreePool] = {}
_pools_lock = threading.Lock()


_git = run_git


def _has_commit(mirror: Path, sha: str) -> bool:
    return _git(["-C", str(mirror), "cat-file", "-e", f"{sha}^{{commit}}"]).returncode == 0


_known: set[tuple[Path, str]] = set()  # (mirror, commit) this worker process has seen in its mirror


def _mirror(cache: Path, source: RepositorySource, commits: Sequence[str], bundle: bytes | None,
            who: WorkerIdentity) -> Path:
    """The worker's bare mirror holding ``commits``, fetched from the bundle or the repository."""
    mirror = cache / "repos" / f"{source.mirror}.git"
    mirror.parent.mkdir(parents=True, exist_ok=True)
    if all((mirror, sha) in _known for sha in commits):
        return mirror
    with FileLock(str(mirror) + ".lock"):
        if not (mirror / "HEAD").exists():
            done = _git(["init", "-q", "--bare", str(mirror)])
            if done.returncode:
                raise WorkerSetupError(f"{who} cannot create a git mirror in {mirror}: {done.stderr.strip()}")
        missing = [sha for sha in commits if not _has_commit(mirror, sha)]
        if not missing:
            _known.update((mirror, sha) for sha in commits)
            return mirror
        if source.kind == "bundle":
            if bundle is None:
                raise WorkerSetupError(f"{who} got no git bundle for {source.location[:12]}")
            path = cache / "bundles" / f"{source.location}.bundle"
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
                tmp.write_bytes(bundle)
                os.replace(tmp, path)
            done = _git(["-C", str(mirror), "fetch", "-q", str(path),
                         f"+refs/heads/*:refs/vtbisect/{source.location[:16]}/*"])
        else:
            done = _git(["-C", str(mirror), "fetch", "-q", source.location, *missing])
            if done.returncode:  # a server that refuses a commit id: fetch its refs instead
                done = _git(["-C", str(mirror), "fetch", "-q", source.location, "+refs/*:refs/vtbisect/source/*"])
        still = [sha for sha in commits if not _has_commit(mirror, sha)]
        if done.returncode or still:
            where = "the git bundle sent with the run" if source.kind == "bundle" else source.location
            raise WorkerSetupError(
                f"{who} cannot get commit {(still or missing)[0][:10]} from {where}: "
                f"{done.stderr.strip() or 'the commit is not there'}; fix: make the repository reachable from the "
                "worker (VT_DASK_SOURCE=<URL or path the worker can fetch>) or send it as a bundle "
                "(VT_DASK_SOURCE=bundle)")
        _known.update((mirror, sha) for sha in commits)
    return mirror


def _pool(cache: Path, mirror: Path, key: str) -> WorktreePool:
    with _pools_lock:
        pool = _pools.get(mirror)
        if pool is None:
            _git(["-C", str(mirror), "worktree", "prune"])  # worktrees of workers that died
            pool = _pools[mirror] = WorktreePool(mirror, cache / "checkouts" / key, SLOTS_PER_WORKER)
            atexit.register(pool.close)
        return pool


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _check_judge_files(files: Mapping[str, str], who: WorkerIdentity) -> None:
    for name, expected in files.items():
        path = Path(name)
        if expected.startswith("stat:"):  # a big data file keyed by size: it must be there
            if not path.is_file():
                raise WorkerSetupError(f"{who} has no {name}, which the judge reads; fix: copy it to the same path "
                                       "on every worker")
            continue
        found = file_sha256(path) if path.is_file() else None
        if found != expected:
            how = "has no" if found is None else "has another version of"
            raise WorkerSetupError(
                f"{who} {how} {name}, the judge file outside the repository (sha256 {expected[:12]} here); fix: "
                "commit it to the repository, or copy the same file to the same path on every worker")


def _unpack_oracle(cache: Path, oracle: tuple[str, str], data: bytes | None, who: WorkerIdentity) -> Path:
    """Gate mode's oracle (suite and goldens) in the worker's cache, unpacked once; the suite's path."""
    name, suite = oracle
    folder = cache / "oracles" / name
    if not folder.is_dir():
        if data is None:
            raise WorkerSetupError(f"{who} got no oracle for gate mode")
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=folder.parent))
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            archive.extractall(staging, filter="data")
        try:
            os.replace(staging, folder)
        except OSError:  # another task of this worker unpacked it first
            shutil.rmtree(staging, ignore_errors=True)
    return folder / suite


def _worker_runner(task: JudgementTask, cache: Path, oracle: bytes | None, who: WorkerIdentity) -> Runner:
    """The judge as this worker runs it: its own environment under the knobs that travelled, and for
    gate mode its own Python and its copy of the oracle."""
    env = {**os.environ, **task.env}
    env.pop("VT_DASK_WORKER_CACHE", None)
    if isinstance(task.runner, GateRunner):
        suite = _unpack_oracle(cache, task.oracle, oracle, who) if task.oracle else task.runner.suite
        return dataclasses.replace(task.runner, env=env, python=sys.executable, suite=suite)
    if isinstance(task.runner, CommandRunner):
        return _command_copy(task.runner, env)
    raise WorkerSetupError(f"unknown judge {type(task.runner).__name__}")


def judge_on_worker(task: JudgementTask, bundle: bytes | None = None, oracle: bytes | None = None) -> RemoteResult:
    """Run on a Dask worker: materialise the candidate, verify its tree, judge it."""
    import vtgate

    who = current_worker()
    if vtgate.__version__ != task.vtgate:
        raise WorkerSetupError(f"{who} runs vtgate {vtgate.__version__}, the client vtgate {task.vtgate}; fix: "
                               "install the same vtgate version on both")
    if not git_available():
        raise WorkerSetupError(f"{who} has no git on its PATH; fix: install git on {who.host}")
    try:
        cache = worker_cache()
    except WorkerCacheError as error:
        raise WorkerSetupError(str(error)) from None
    # This worker's judges are noted (a worker killed under them leaves a trace); the children of a
    # worker process killed on this host before (its nanny restarted us) are killed now.
    note_children_in(child_ledger(cache))
    mirror = _mirror(cache, task.source, (task.commit, *task.reverts), bundle, who)
    _check_judge_files(task.judge_files, who)
    runner = _worker_runner(task, cache, oracle, who)
    pool = _pool(cache, mirror, task.source.mirror)
    with pool.lease() as path:
        try:
            prepared = pool.prepare(path, task.commit, task.reverts)
        except RevertConflict as conflict:
            return RemoteResult(who, task.tree, conflict=(conflict.commit, str(conflict)))
        done = _git(["rev-parse", "HEAD^{tree}"], cwd=prepared.path)
        tree = done.stdout.strip()
        try:
            judgement = runner.judge(prepared)
        except JudgeAbort as error:
            return RemoteResult(who, tree, abort=(str(error), int(error.exit_code)))
    return RemoteResult(who, tree, judgement=judgement)


# ---- the client side -------------------------------------------------------------------------------

def make_bundle(repo: Path, commits: Sequence[str], folder: Path) -> Path:
    """A git bundle of everything reachable from ``commits``, made in a scratch repository that borrows
    ``repo``'s objects (alternates): the user's repository gets no ref, not even for a moment."""
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bundle-", dir=folder) as scratch:
        work = Path(scratch) / "repo.git"

        def step(args: Sequence[str]) -> str:
            done = run_git(args)
            if done.returncode:
                raise ExecutorError(f"git {' '.join(args[:3])} for the bundle of {repo} failed: {done.stderr.strip()}",
                                    ExitCode.INTERNAL)
            return done.stdout.strip()

        objects = step(["-C", str(repo), "rev-parse", "--path-format=absolute", "--git-common-dir"])
        step(["init", "-q", "--bare", str(work)])
        (work / "objects" / "info" / "alternates").write_text(str(Path(objects) / "objects") + "\n")
        for index, sha in enumerate(dict.fromkeys(commits)):
            step(["-C", str(work), "update-ref", f"refs/heads/c{index}", sha])
        target = folder / f"{hashlib.sha256(' '.join(sorted(commits)).encode()).hexdigest()[:16]}.bundle"
        done = run_git(["-C", str(work), "bundle", "create", "-q", str(target), "--branches"])
        if done.returncode:
            raise ExecutorError(f"git bundle of {repo} failed: {done.stderr.strip()}", ExitCode.INTERNAL)
    return target


def repository_source(settings: ExecutorSettings, repo: Path, tips: Sequence[str], cache_dir: Path,
                      ) -> tuple[RepositorySource, bytes | None]:
    """How workers get the candidates (``settings.repository_source``) and the bundle bytes to send."""
    chosen = settings.repository_source
    own = hashlib.sha256(f"{socket.gethostname()}:{repo.resolve()}".encode()).hexdigest()[:16]
    if chosen == "path":
        return RepositorySource("repository", str(repo.resolve()), own), None
    if chosen != "bundle":
        return RepositorySource("repository", chosen, hashlib.sha256(chosen.encode()).hexdigest()[:16]), None
    path = make_bundle(repo, tips, cache_dir / "bundles")
    size_mb = path.stat().st_size / 1e6
    if size_mb > settings.bundle_limit_mb:
        path.unlink()
        raise ExecutorError(
            f"the git bundle of the range is {size_mb:.1f} MB, over the limit of {settings.bundle_limit_mb:g} MB "
            "(VT_DASK_BUNDLE_LIMIT_MB / [tool.vtgate.executor] bundle_limit_mb); fix: raise the limit, or let the "
            "workers fetch from a repository they can reach (VT_DASK_SOURCE=<URL or path>)")
    data = path.read_bytes()
    return RepositorySource("bundle", hashlib.sha256(data).hexdigest(), own), data


def pack_oracle(suite: Path, limit_mb: float) -> tuple[tuple[str, str], bytes]:
    """Gate mode's oracle folder (``<cache>/oracle/<digest>``: suite, goldens) as a tar for the workers,
    and (its name, the suite's path inside it)."""
    folder = next((p for p in suite.parents if p.parent.name == "oracle"), suite.parent)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(folder, arcname=".")
    data = buffer.getvalue()
    if len(data) / 1e6 > limit_mb:
        raise ExecutorError(f"the gate suite's oracle ({folder}: suite and goldens) is {len(data) / 1e6:.1f} MB "
                            f"packed, over the limit of {limit_mb:g} MB (VT_DASK_BUNDLE_LIMIT_MB); fix: raise the limit")
    return (folder.name, suite.relative_to(folder).as_posix()), data


class RemotePool:
    """The driver's worktree pool, on the cluster: ``prepare`` submits the judgement and waits for it
    (so a revert conflict surfaces where the driver expects it); ``RemoteRunner.judge`` hands it over."""

    def __init__(self, executor: DaskExecutor, repo: Path, runner: Runner, env: Mapping[str, str],
                 source: RepositorySource, bundle: bytes | None, slots: int, limit_mb: float) -> None:
        import vtgate

        self.executor = executor
        self.repo = repo
        self.source = source
        self.bundle = executor.broadcast(bundle) if bundle is not None else None
        knobs = verdict_env(env, runner.knobs)
        if isinstance(runner, CommandRunner):
            plan = runner.plan
            files = dict(plan.identity.get("files", {})) if plan else {}
            travelling: Runner = _command_copy(runner, knobs)
        else:
            files = {}
            travelling = dataclasses.replace(runner, env=knobs)  # type: ignore[type-var]
        self.oracle: tuple[str, str] | None = None
        self.oracle_data: Any = None
        if isinstance(runner, GateRunner):
            self.oracle, data = pack_oracle(runner.suite, limit_mb)
            self.oracle_data = executor.broadcast(data)
        self.runner, self.knobs, self.files, self.version = travelling, knobs, files, vtgate.__version__
        self.resources = executor.resources_for(gate_resources(runner))
        self._free = [Path(f"<dask slot {i}>") for i in range(slots)]
        self._cond = threading.Condition()
        self._results: dict[Path, RemoteResult] = {}
        self._trees: dict[str, str] = {}
        self.cancelled = False

    @contextlib.contextmanager
    def lease(self) -> Iterator[Path]:
        with self._cond:
            while not self._free:
                self._cond.wait()
            slot = self._free.pop()
        try:
            yield slot
        finally:
            with self._cond:
                self._results.pop(slot, None)
                self._free.append(slot)
                self._cond.notify()

    def _tree(self, sha: str) -> str:
        if sha not in self._trees:
            self._trees[sha] = tree_of(self.repo, sha)
        return self._trees[sha]

    def prepare(self, path: Path, commit: str, reverts: Sequence[str] = ()) -> Prepared:
        expected = self._tree(commit)
        task = JudgementTask(commit, expected, tuple(reverts), self.source, self.runner, self.knobs, self.files,
                             self.version, self.oracle)
        if self.cancelled:
            raise JudgeAbort("the run was cancelled", ExitCode.INTERNAL)
        try:  # cancel() makes it raise CancelledError at once
            result: RemoteResult = self.executor.wait(judge_on_worker, task, self.bundle, self.oracle_data,
                                                      resources=self.resources, stopped=lambda: self.cancelled)
        except WorkerSetupError as error:
            raise JudgeAbort(str(error), ExitCode.USAGE) from None
        except BaseException as error:  # what Dask raises is reported, never a verdict
            if self.cancelled:  # Dask's CancelledError is a BaseException
                raise JudgeAbort("the run was cancelled", ExitCode.INTERNAL) from None
            if not isinstance(error, Exception):
                raise
            if is_killed_worker(error):
                raise JudgeAbort(f"the judgement of {commit[:10]} took down every worker it was tried on ({error}); "
                                 "it is not a verdict: look at the workers' logs", ExitCode.INTERNAL) from None
            if isinstance(error, ModuleNotFoundError):
                raise JudgeAbort(f"a worker cannot import {error.name} to judge {commit[:10]}: install vtgate "
                                 f"{self.version} in every worker's environment", ExitCode.USAGE) from None
            if isinstance(error, CancelledError):
                raise JudgeAbort(f"the scheduler dropped the judgement of {commit[:10]} every time it was submitted "
                                 f"({error}); it is not a verdict: look at the scheduler's log", ExitCode.INTERNAL) from None
            raise
        accept(result, commit, expected)
        if result.conflict is not None:
            raise RevertConflict(result.conflict[0], result.conflict[1].split(": ", 1)[-1])
        self._results[path] = result
        return Prepared(path=path, commit=commit, reverts=tuple(reverts))

    def take(self, path: Path) -> RemoteResult:
        return self._results.pop(path)

    def cancel(self) -> None:
        self.cancelled = True
        self.executor.cancel_all()

    def close(self) -> None:
        self.cancel()


def gate_resources(runner: Runner) -> dict[str, float]:
    """Gate mode: the largest amount of each Dask worker resource the judged gates ask for
    (``resources = {GPU = 1}`` in their ``[[gate]]`` tables); command mode: none."""
    if not isinstance(runner, GateRunner):
        return {}
    from vtgate.suite.load import load_suite

    wanted: dict[str, float] = {}
    for spec in load_suite(runner.suite).gates:
        if spec.name in runner.gates:
            for name, amount in spec.resources.items():
                wanted[name] = max(wanted.get(name, 0.0), amount)
    return wanted


def _command_copy(runner: CommandRunner, env: Mapping[str, str]) -> CommandRunner:
    """``runner`` with another environment; no ``__post_init__``: the command was checked on the client."""
    copy = CommandRunner.__new__(CommandRunner)
    copy.__dict__.update({**runner.__dict__, "env": dict(env)})
    return copy


def accept(result: RemoteResult, commit: str, expected_tree: str) -> None:
    """The client's check: a worker's judgement counts only for the tree the commit names."""
    if result.abort is not None:
        message, code = result.abort
        raise JudgeAbort(f"{message} (on {result.worker})", code)
    if result.tree != expected_tree:
        raise JudgeAbort(
            f"{result.worker} judged tree {result.tree[:12] or '<none>'} for commit {commit[:10]}, whose tree is "
            f"{expected_tree[:12]}: its verdict is refused (its mirror of the repository is not this repository); "
            "fix: clear the worker's cache folder (VT_DASK_WORKER_CACHE) and re-run", ExitCode.INTERNAL)


@dataclass
class RemoteRunner:
    """The driver's runner, on the cluster: the judge's identity (cache key, recipe) is the local
    runner's; a judgement is what the worker returned for the slot, its log headed by who judged it."""

    local: Runner
    pool: RemotePool
    say: Any = None  # a callable taking one line of progress (the worker that judged a step)

    @property
    def gates(self) -> tuple[str, ...]:
        return self.local.gates

    @property
    def knobs(self) -> Any:
        return self.local.knobs

    @property
    def deliberate(self) -> frozenset[str]:
        return getattr(self.local, "deliberate", frozenset())

    def oracle_digest(self) -> str:
        return self.local.oracle_digest()

    def recipe(self) -> list[str]:
        return self.local.recipe()

    def judge(self, prepared: Prepared) -> Judgement:
        result = self.pool.take(prepared.path)
        assert result.judgement is not None
        judgement = result.judgement
        if self.say is not None:
            self.say(f"    {prepared.commit[:10]} judged by {result.worker}")
        header = f"# judged by {result.worker}, tree {result.tree}\n"
        return dataclasses.replace(judgement, log=header + judgement.log)


@contextlib.contextmanager
def dask_judging(settings: ExecutorSettings, repo: Path, runner: Runner, env: Mapping[str, str],
                 tips: Sequence[str], cache_dir: Path, jobs: int, say: Any = None,
                 ) -> Iterator[tuple[RemotePool, RemoteRunner]]:
    """The (pool, runner) pair the driver uses on a Dask cluster: connected, workers checked, the
    repository's source ready; on the way out every unfinished task is cancelled, the client closed,
    and a LocalCluster's worktrees (on this machine) removed."""
    local_cache = Path(settings.worker_cache) if settings.worker_cache else cache_dir / "dask-local"
    worker_env = {"VT_DASK_WORKER_CACHE": str(local_cache)}
    source, bundle = repository_source(settings, repo, tips, cache_dir / "dask")  # a bundle too big: no cluster
    executor = DaskExecutor(settings, jobs, worker_env)
    pool: RemotePool | None = None
    try:
        executor.check_workers()
        executor.require_resources(executor.resources_for(gate_resources(runner)), ", which the judged gates need")
        pool = RemotePool(executor, repo, runner, env, source, bundle, jobs, settings.bundle_limit_mb)
        yield pool, RemoteRunner(runner, pool, say)
    finally:
        if pool is not None:
            pool.cancel()
        executor.close()
        if executor.cluster is not None:
            shutil.rmtree(local_cache / "checkouts", ignore_errors=True)
            for mirror in (local_cache / "repos").glob("*.git"):
                _git(["-C", str(mirror), "worktree", "prune"])


@contextlib.contextmanager
def judging(settings: ExecutorSettings, pool: WorktreePool, runner: Runner, env: Mapping[str, str], repo: Path,
            tips: Sequence[str], cache_dir: Path, jobs: int, say: Any = None) -> Iterator[tuple[Any, Any]]:
    """The executor interface of vtbisect: (pool, runner) for the driver. ``local``: this machine's
    worktree pool and the runner as they are; ``dask``: their cluster counterparts."""
    if settings.kind == "local":
        yield pool, runner
        return
    with dask_judging(settings, repo, runner, env, tips, cache_dir, jobs, say) as (remote_pool, remote_runner):
        yield remote_pool, remote_runner


def stop_remote(pool: Any) -> None:
    """Cancel a cluster pool's unfinished judgements (Ctrl-C, abort) before the driver's threads are joined."""
    if isinstance(pool, RemotePool):
        pool.cancel()
