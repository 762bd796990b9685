"""The leg runner of a perf gate: a probe callable (``vtgate.perf.legs:measure``) that the probe layer
runs in its own subprocess like any probe, and that runs the gate's legs one at a time, candidate and
reference interleaved (warm-up pair, then A B, B A, A B, ...), each leg one call of the probe in one
of a few warm processes of its role (``vtgate.perf.worker``), or, as the gate chooses, in a process
of its own forked from its role's fork server (``vtgate.run.forkserver``) or a fresh interpreter (always,
for command probes), with the quiet-host preflight before every leg. Legs hold a host-wide lock while they run, so the perf
gates of one check (which the probe layer runs side by side) or of two vtgate processes never time
at the same moment. It records every leg (metric, exact outputs, stage
profile, host state) and stops at the first leg that fails, the first noisy preflight, or the first
leg without the timing metric; the gate kind (``vtgate.kinds.perf``) judges what it recorded.

Being one probe run, it is killed with its whole tree by the probe layer on a timeout or Ctrl-C: no
leg outlives it. A reference revision is exported (``git archive``, not a git worktree) into
``.vtgate-cache/perf-ref/<commit>`` under the tree under test: a commit never changes, so the export
is reused, and an export cut short is never mistaken for a finished one (it is renamed into place
only when complete)."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import random
import select
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import psutil
from filelock import FileLock

from vtgate.errors import ErrorKind
from vtgate.kinds._common import is_missing, lookup
from vtgate.perf.hostcheck import CpuSampler, QuietPolicy, preflight
from vtgate.perf.stats import sequential_looks
from vtgate.perf.worker import PAD_ENV, READY
from vtgate.run.execute import (
    AmbientEnv,
    ProbeKey,
    ProbeResult,
    check_stale,
    expected_tree_hash,
    probe_environment,
    run_one,
)
from vtgate.run.proctree import ChildProcesses, kill_tree
from vtgate.run.workers import Workers
from vtgate.suite.records import ProbeRef, ProbeRequest, SuiteSettings

CACHE = Path(".vtgate-cache") / "perf-ref"
WAIT_QUIET_ENV = "VTGATE_WAIT_QUIET"  # vtgate check --wait-quiet SECONDS reaches the leg runner here
PREFLIGHT_ENV = "VTGATE_PERF_PREFLIGHT"  # "record": measure on a noisy host, recording its state
REFERENCE_REF_ENV = "VTGATE_PERF_REFERENCE_REF"  # vtbisect: time every candidate against GOOD's commit
OUTPUT_FIELDS = ("tokens", "digests", "counters")
ROLES = ("candidate", "reference")
PROCESS_MODES = ("fork", "warm", "fresh")  # how a leg's process comes to be (docs/perf.md, "How a gate runs")
LEG_LOCK = str(Path(tempfile.gettempdir()) / "vtgate-perf-legs.lock")
LEG_HOLDER = LEG_LOCK + ".last"  # which leg runner held the lock last (written under it)
RUNNERS = Path(tempfile.gettempdir()) / "vtgate-perf-runners"  # one file per live leg runner: pid, start time


def _last_leg_holder() -> str:
    try:
        return Path(LEG_HOLDER).read_text(encoding="utf-8")
    except OSError:
        return ""


def _mark_leg_holder(token: str) -> None:
    """Say (under the leg lock) which runner timed last: the next runner to take the lock starts its
    CPU window afresh instead of counting that runner's legs as another process's load."""
    with contextlib.suppress(OSError):
        Path(LEG_HOLDER).write_text(token, encoding="utf-8")


def _start_time(pid: int) -> float | None:
    try:
        return psutil.Process(pid).create_time()
    except psutil.Error:
        return None


def register_runner() -> Path | None:
    """Say that this process is a perf leg runner (until ``unregister_runner``): the preflight of every
    other runner on this host (of this check, or of another vtgate process) counts this runner's tree,
    with its warm processes starting up, as a peer's, not as another process's load. Their legs never
    time at once anyway (the host-wide leg lock)."""
    started = _start_time(os.getpid())
    try:
        RUNNERS.mkdir(mode=0o1777, exist_ok=True)
        entry = RUNNERS / str(os.getpid())
        entry.write_text(repr(started), encoding="ascii")
    except OSError:
        return None
    return entry


def unregister_runner(entry: Path | None) -> None:
    if entry is not None:
        with contextlib.suppress(OSError):
            entry.unlink()


def peer_runners() -> list[int]:
    """The pids of the other live perf leg runners on this host (an entry whose process is gone, or is
    another process by now, is ignored)."""
    try:
        entries = list(RUNNERS.iterdir())
    except OSError:
        return []
    found = []
    for entry in entries:
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            recorded = float(entry.read_text(encoding="ascii"))
        except (OSError, ValueError):
            continue
        started = _start_time(int(entry.name))
        if started is not None and abs(started - recorded) < 0.01:
            found.append(int(entry.name))
        elif started is None:  # a runner killed before it could say it ended
            with contextlib.suppress(OSError):
                entry.unlink()
    return found


class ReferenceError(Exception):
    """The reference revision cannot be made into a tree to measure."""


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False)


def resolve_commit(root: Path, ref: str) -> str:
    done = _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if done.returncode != 0:
        raise ReferenceError(f"reference ref = {ref!r} is not a commit of the repository at {root} "
                             f"(git rev-parse: {done.stderr.decode(errors='replace').strip() or 'unknown revision'}); "
                             "fetch it or fix the gate's reference.ref")
    return done.stdout.decode().strip()


def export_revision(root: Path, commit: str) -> Path:
    """The tree of ``commit`` under ``root/.vtgate-cache/perf-ref/<commit>`` (exported once, reused)."""
    cache = root / CACHE
    target = cache / commit
    if target.is_dir():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".partial-{commit[:12]}-", dir=cache))
    try:
        with tempfile.TemporaryFile() as archive:
            done = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", commit], stdout=archive,
                                  stderr=subprocess.PIPE, check=False)
            if done.returncode != 0:
                raise ReferenceError(f"git archive {commit[:12]} failed: {done.stderr.decode(errors='replace').strip()}")
            archive.seek(0)
            with tarfile.open(fileobj=archive) as tar:
                if hasattr(tarfile, "data_filter"):  # Python >= 3.10.12: refuse links out of the tree
                    tar.extractall(partial, filter="data")
                else:  # pragma: no cover
                    tar.extractall(partial)  # noqa: S202 - our own repository's archive
        try:
            partial.rename(target)
        except OSError:  # another run exported it first
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return target


def start_order(worker: int) -> tuple[str, str]:
    """Which role of process pair ``worker`` starts (and warms up) first: the candidate in even pairs,
    the reference in odd ones, so being first is no privilege of one role."""
    return ROLES if worker % 2 == 0 else (ROLES[1], ROLES[0])


def warmup_order(warmup: int, workers: int) -> list[tuple[str, int | None, int]]:
    """(role, round None, worker) of the warm-up legs: ``warmup`` pairs per worker, judged never."""
    return [(role, None, worker) for worker in range(workers) for _ in range(warmup) for role in start_order(worker)]


def block_order(first_round: int, count: int, workers: int) -> list[tuple[str, int | None, int]]:
    """(role, round, worker) of the legs of rounds ``first_round`` .. ``first_round + count - 1``:
    A B in even rounds, B A in odd ones, so a drift in the host's speed falls on both roles alike;
    round k runs in the k-th warm process pair (k mod ``workers``), so a process that happens to run
    faster (memory placement) is shared out over rounds instead of biasing every one."""
    order: list[tuple[str, int | None, int]] = []
    for number in range(first_round, first_round + count):
        pair = ROLES if number % 2 == 0 else ROLES[::-1]
        order += [(role, number, number % workers) for role in pair]
    return order


def leg_order(rounds: int, warmup: int, workers: int = 1) -> list[tuple[str, int | None]]:
    """(role, round) of every leg of a fixed ``rounds``-round schedule after the warm-up pairs."""
    legs = warmup_order(warmup, workers) + block_order(0, rounds, workers)
    return [(role, number) for role, number, _ in legs]


class WarmProbe:
    """One role's warm probe process (``vtgate.perf.worker``): a leg is one call of the probe in it, with
    the same env, cwd and PYTHONPATH a fresh probe run would get. Its stderr goes to a file, whose tail
    explains a crash."""

    def __init__(self, key: ProbeKey, root: Path, settings: SuiteSettings) -> None:
        assert key.probe.callable is not None
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the worker; closed in close()
        env = probe_environment(key, root, settings, AmbientEnv({}))
        env[PAD_ENV] = "x" * random.SystemRandom().randrange(0, 4096, 16)  # a random stack start, per process
        self.process = subprocess.Popen(
            [sys.executable, "-m", "vtgate.perf.worker", key.probe.callable], cwd=root,
            env=env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self.stderr, start_new_session=True)
        self._ready = False

    def wait_ready(self, timeout: float) -> None:
        """Wait until the process has imported the probe (its first line); a process that died
        instead is reported by the next ``call``."""
        stdout = self.process.stdout
        assert stdout is not None
        if not self._ready and select.select([stdout], [], [], timeout)[0]:
            self._ready = stdout.readline().strip() == READY

    def _tail(self) -> str:
        self.stderr.seek(0)
        lines = self.stderr.read().decode("utf-8", "replace").rstrip().splitlines()
        return "\n".join(lines[-20:])

    def _failed(self, key: ProbeKey, message: str, kind: ErrorKind, started: float) -> ProbeResult:
        tail = self._tail()
        text = f"{message}\n--- probe stderr (last lines) ---\n{tail}" if tail else f"{message} (stderr empty)"
        return ProbeResult(key, None, text, kind, time.perf_counter() - started, tail)

    def call(self, key: ProbeKey, timeout: float) -> ProbeResult:
        started = time.perf_counter()
        self.wait_ready(timeout)
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(key.args_json.encode() + b"\n")
            stdin.flush()
        except BrokenPipeError:
            pass  # it died: the empty read below says how
        if not select.select([stdout], [], [], timeout)[0]:
            self.close()
            return self._failed(key, f"probe {key.probe} timed out after {timeout:g} s and was killed (with its "
                                     "children)", "timeout", started)
        line = stdout.readline()
        if not line:
            code = self.process.wait()
            how = f"was killed by signal {-code}" if code < 0 else f"exited with status {code}"
            return self._failed(key, f"probe {key.probe} {how}", "probe", started)
        try:
            observation = json.loads(line)
        except json.JSONDecodeError as error:
            return self._failed(key, f"probe {key.probe} answered non-JSON ({error.msg})", "probe", started)
        if not isinstance(observation, dict):
            return self._failed(key, f"probe {key.probe} answered JSON {type(observation).__name__}, not an object",
                                "probe", started)
        return ProbeResult(key, observation, None, None, time.perf_counter() - started)

    def close(self) -> None:
        kill_tree(self.process.pid)
        self.process.wait()
        self.stderr.close()


def _probe_ref(raw: Mapping[str, Any]) -> ProbeRef:
    return ProbeRef(callable=raw["callable"]) if raw.get("callable") else ProbeRef(cmd=tuple(raw["cmd"]))


def _outputs(observation: Mapping[str, Any], fields: list[str]) -> dict[str, Any]:
    found = {}
    for field in fields:
        value = lookup(observation, field)
        if not is_missing(value):
            found[field] = value
    return found


def _without_own_pythonpath(root: Path, settings: SuiteSettings) -> None:
    """The probe layer put ``root``'s source roots on this process's PYTHONPATH; each leg gets its own
    tree's instead (a reference leg must not import the candidate's code)."""
    own = {str(root / entry) for entry in settings.pythonpath}
    kept = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p not in own]
    if kept:
        os.environ["PYTHONPATH"] = os.pathsep.join(kept)
    else:
        os.environ.pop("PYTHONPATH", None)


def paired_rounds(legs: list[Mapping[str, Any]], process: str | None) -> tuple[list[float], list[float], list[int] | None]:
    """The complete rounds of these legs in order: candidate values, reference values, and for warm
    processes (``process == "warm"``) the process pair each round ran in (for the two-level bootstrap;
    ``None`` when every leg had a process of its own)."""
    by_round: dict[int, dict[str, Any]] = {}
    for leg in legs:
        if leg.get("round") is not None and leg.get("value") is not None:
            entry = by_round.setdefault(int(leg["round"]), {})
            entry[leg["role"]] = float(leg["value"])
            entry["worker"] = leg.get("worker")
    complete = [pair for _, pair in sorted(by_round.items()) if set(ROLES) <= set(pair)]
    groups = [int(p["worker"] or 0) for p in complete] if process == "warm" else None
    return [p["candidate"] for p in complete], [p["reference"] for p in complete], groups


def measure(probe: Mapping[str, Any], args: Mapping[str, Any], metric: str, candidate: Mapping[str, Any],
            reference: Mapping[str, Any], rounds: int, warmup: int, leg_timeout: float,
            quiet: Mapping[str, Any] | bool | None, suite: str,
            compare: list[str] | None = None, process: str = "warm", *, looks: int = 1,
            budget: float | None = None, workers: int = 1, min_ratio: float | None = None,
            better: str = "higher", confidence: float = 0.95, statistic: str = "hodges-lehmann") -> dict[str, Any]:
    """Run the legs in this process's cwd (the tree under test) and return what they measured (the
    perf kind's observation, docs/perf.md). ``suite`` is the gate's suite file, for its ``[suite]``
    settings (how to run the code of a tree). ``process`` says where a callable probe's leg runs:
    ``"warm"``, one of ``workers`` long-lived processes per role (``WarmProbe``), round k in pair
    k mod ``workers`` (the looks then resample pairs as well as rounds); ``"fork"``, a child of its
    role's fork server, so every leg starts from the state right after the probe module's import and
    nothing the probe keeps in its process is shared between legs; ``"fresh"``, a new interpreter. A
    command probe always runs as a fresh process per leg. The rounds come in blocks of ``rounds``: after each block the looks so far are judged
    (``vtgate.perf.stats.sequential_looks``, with ``min_ratio``) and the runner stops at the first look
    that decides, after ``looks`` blocks, or when another block would overrun ``budget`` seconds."""
    from vtgate.suite.load import load_suite

    root = Path.cwd().resolve()
    suite_settings = load_suite(suite).settings
    policy = QuietPolicy.from_options(quiet)
    if os.environ.get(PREFLIGHT_ENV) == "record":
        policy = dataclasses.replace(policy, enforce=False)
    wait_budget = float(os.environ.get(WAIT_QUIET_ENV) or 0)
    fields = list(compare or OUTPUT_FIELDS)
    _without_own_pythonpath(root, suite_settings)
    reference = dict(reference)
    override = os.environ.get(REFERENCE_REF_ENV, "").strip()
    if override and reference.get("ref"):
        reference = {**reference, "ref": override, "declared_ref": reference["ref"]}
    record: dict[str, Any] = {"outcome": "measured", "problem": None, "legs": [], "policy": policy.to_json(),
                              "metric": metric, "reference": dict(reference), "looks": [], "stopped": None}
    roots = {"candidate": root}
    try:
        if reference.get("ref"):
            commit = resolve_commit(root, str(reference["ref"]))
            roots["reference"] = export_revision(root, commit)
            record["reference"] = {**reference, "commit": commit, "root": str(roots["reference"])}
        else:
            roots["reference"] = root
    except ReferenceError as error:
        record.update(outcome="reference-unavailable", problem=str(error))
        return record
    hashes = {role: expected_tree_hash(path, suite_settings) for role, path in roots.items()}
    envs = {"candidate": dict(candidate.get("env", {})), "reference": dict(reference.get("env", {}))}
    ref = _probe_ref(probe)
    mode = process if ref.callable is not None else "fresh"
    warm_processes = mode == "warm"
    pool_size = max(1, workers) if warm_processes else 1
    children = ChildProcesses()
    servers = Workers(children)  # the fork servers of mode "fork", one per role, started by the first leg
    warm: dict[tuple[str, int], WarmProbe] = {}
    state = {"waited": 0.0}
    sampler = CpuSampler(peers=peer_runners)  # this runner's tree (warm processes, fork servers, legs) is never "other"
    lock_token = f"{os.getpid()} {time.time_ns()}"

    def run_leg(role: str, number: int | None, worker: int) -> bool:
        """One leg, recorded; False when the run must stop (noisy host, failed leg, no metric)."""
        index = len(record["legs"])
        with FileLock(LEG_LOCK):  # no two perf legs at once on this host, whichever gate or vtgate runs them
            if _last_leg_holder() != lock_token:
                sampler.forget()  # another runner's legs ran since our last reading: not noise of this host
            try:
                check = preflight(policy, max(0.0, wait_budget - state["waited"]),
                                  read=lambda: sampler.read(policy.competing))
            finally:
                _mark_leg_holder(lock_token)
            state["waited"] += check.waited
            leg: dict[str, Any] = {"index": index, "role": role, "round": number, "worker": worker,
                                   "host": check.to_json()}
            record["legs"].append(leg)
            if check.noisy:
                record.update(outcome="noisy", problem="; ".join(check.noisy), noisy_leg=index)
                return False
            request = ProbeRequest(label=role, probe=ref, args=dict(args), env=envs[role])
            key = ProbeKey.of(request, roots[role])
            if warm_processes:
                result = warm[(role, worker)].call(key, leg_timeout)
            else:
                result = run_one(key, roots[role], suite_settings, leg_timeout, children=children,
                                 ambient=AmbientEnv({}), workers=servers, server=mode == "fork")
        result = check_stale(result, hashes[role], suite_settings.source_tree)
        leg["seconds"] = round(result.seconds, 4)
        if result.observation is None:
            leg["error"] = result.error
            record.update(outcome="leg-failed", problem=result.error, error_kind=result.error_kind, failed_leg=index)
            return False
        value = lookup(result.observation, metric)
        leg["value"] = None if is_missing(value) else value
        leg["outputs"] = _outputs(result.observation, fields)
        stages = result.observation.get("stages")
        leg["stages"] = stages if isinstance(stages, Mapping) else None
        if leg["value"] is None or isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            present = ", ".join(sorted(result.observation)) or "none"
            record.update(outcome="no-metric", failed_leg=index,
                          problem=f"the {role} leg's observation has no positive number at '{metric}' "
                                  f"(fields present: {present}); a perf gate needs a timing metric")
            return False
        return True

    def start_pairs(first: int) -> None:
        """Retire the warm processes of the last block and start ``pool_size`` new pairs, numbered from
        ``first``: every block of rounds runs in pairs of its own, so the number of pairs (what the
        two-level bootstrap resamples) grows with the looks instead of staying at ``workers``."""
        for old_process in warm.values():
            old_process.close()
        warm.clear()
        for worker in range(first, first + pool_size):  # all start importing at once; the first legs wait
            for role in start_order(worker):
                request = ProbeRequest(label=role, probe=ref, args=dict(args), env=envs[role])
                warm[(role, worker)] = WarmProbe(ProbeKey.of(request, roots[role]), roots[role], suite_settings)
        for warm_process in warm.values():
            warm_process.wait_ready(leg_timeout)

    started = time.monotonic()
    registered = register_runner()
    try:
        going = True
        for look in range(1, looks + 1):
            block_started = time.monotonic()
            first = (look - 1) * pool_size if warm_processes else 0
            if warm_processes:
                start_pairs(first)
            if warm_processes or look == 1:
                going = all(run_leg(role, number, first + worker)
                            for role, number, worker in warmup_order(warmup, pool_size))
            if not going:
                break
            going = all(run_leg(role, number, first + worker)
                        for role, number, worker in block_order((look - 1) * rounds, rounds, pool_size))
            if not going:
                break
            if min_ratio is not None:
                cand, refs, groups = paired_rounds(record["legs"], mode)
                taken = sequential_looks(cand, refs, rounds_per_look=rounds, looks=looks, min_ratio=min_ratio,
                                         better="lower" if better == "lower" else "higher", confidence=confidence,
                                         statistic="upper-quartile" if statistic == "upper-quartile" else "hodges-lehmann",
                                         groups=groups)
                record["looks"] = [one.to_json() for one in taken]
                if taken and taken[-1].decision != "inconclusive":
                    record["stopped"] = "decided"
                    break
            now = time.monotonic()
            if look == looks:
                record["stopped"] = "all looks taken"
            elif budget is not None and (now - started) + (now - block_started) > budget:
                record["stopped"] = f"budget: another block of {rounds} rounds would overrun {budget:g} s"
                break
    finally:  # nothing outlives the runner, also on an exception
        for warm_process in warm.values():
            warm_process.close()
        servers.close()
        children.kill_all()
        unregister_runner(registered)
    if hashes["candidate"] is not None:  # the stale guard of the probe layer checks the runner's tree too
        record["meta"] = {"source_tree_hash": hashes["candidate"]}
    record["waited_for_quiet"] = round(state["waited"], 2)
    record["legs_seconds"] = round(time.monotonic() - started, 2)
    record["workers"] = pool_size
    record["process"] = mode
    return record
