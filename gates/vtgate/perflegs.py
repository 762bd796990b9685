"""The leg runner of a perf gate: a probe callable (``vtgate.perflegs:measure``) that the probe layer
runs in its own subprocess like any probe, and that runs the gate's legs one at a time, candidate and
reference interleaved (warm-up pair, then A B, B A, A B, ...), each leg one call of the probe in a
warm process of its role (``vtgate.perfworker``; a fresh subprocess per leg for command probes), with
the quiet-host preflight before every leg. Legs hold a host-wide lock while they run, so the perf
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

import json
import os
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

from filelock import FileLock

from vtgate.errors import ErrorKind
from vtgate.hostcheck import QuietPolicy, preflight
from vtgate.kinds._common import is_missing, lookup
from vtgate.probes import (
    AmbientEnv,
    ProbeKey,
    ProbeResult,
    check_stale,
    expected_tree_hash,
    probe_environment,
    run_one,
)
from vtgate.proctree import ChildProcesses, kill_tree
from vtgate.records import ProbeRef, ProbeRequest, SuiteSettings

CACHE = Path(".vtgate-cache") / "perf-ref"
WAIT_QUIET_ENV = "VTGATE_WAIT_QUIET"  # vtgate check --wait-quiet SECONDS reaches the leg runner here
PREFLIGHT_ENV = "VTGATE_PERF_PREFLIGHT"  # "record": measure on a noisy host, recording its state
OUTPUT_FIELDS = ("tokens", "digests", "counters")
LEG_LOCK = str(Path(tempfile.gettempdir()) / "vtgate-perf-legs.lock")


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


def leg_order(rounds: int, warmup: int) -> list[tuple[str, int | None]]:
    """(role, round) for every leg: ``warmup`` pairs (round None), then rounds in A B / B A order, so
    a drift in the host's speed falls on both roles alike."""
    order: list[tuple[str, int | None]] = []
    for _ in range(warmup):
        order += [("candidate", None), ("reference", None)]
    for number in range(rounds):
        pair = ["candidate", "reference"] if number % 2 == 0 else ["reference", "candidate"]
        order += [(role, number) for role in pair]
    return order


class WarmProbe:
    """One role's warm probe process (``vtgate.perfworker``): a leg is one call of the probe in it, with
    the same env, cwd and PYTHONPATH a fresh probe run would get. Its stderr goes to a file, whose tail
    explains a crash."""

    def __init__(self, key: ProbeKey, root: Path, settings: SuiteSettings) -> None:
        assert key.probe.callable is not None
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the worker; closed in close()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "vtgate.perfworker", key.probe.callable], cwd=root,
            env=probe_environment(key, root, settings, AmbientEnv({})), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self.stderr, start_new_session=True)

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


def measure(probe: Mapping[str, Any], args: Mapping[str, Any], metric: str, candidate: Mapping[str, Any],
            reference: Mapping[str, Any], rounds: int, warmup: int, leg_timeout: float,
            quiet: Mapping[str, Any] | bool | None, suite: str,
            compare: list[str] | None = None, fresh_process: bool = False) -> dict[str, Any]:
    """Run the legs in this process's cwd (the tree under test) and return what they measured (the
    perf kind's observation, docs/perf.md). ``suite`` is the gate's suite file, for its ``[suite]``
    settings (how to run the code of a tree). A callable probe runs warm, one process per role
    (``WarmProbe``), unless ``fresh_process``; a command probe always runs as a fresh process per leg."""
    from vtgate.suite import load_suite

    root = Path.cwd().resolve()
    suite_settings = load_suite(suite).settings
    policy = QuietPolicy.from_options(quiet)
    if os.environ.get(PREFLIGHT_ENV) == "record":
        policy = QuietPolicy(policy.max_load_per_core, policy.min_available_mb, policy.competing, policy.governor, False)
    wait_budget = float(os.environ.get(WAIT_QUIET_ENV) or 0)
    fields = list(compare or OUTPUT_FIELDS)
    _without_own_pythonpath(root, suite_settings)
    record: dict[str, Any] = {"outcome": "measured", "problem": None, "legs": [], "policy": policy.to_json(),
                              "metric": metric, "reference": dict(reference)}
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
    children = ChildProcesses()
    warm: dict[str, WarmProbe] = {}
    waited = 0.0
    try:
        for index, (role, number) in enumerate(leg_order(rounds, warmup)):
            with FileLock(LEG_LOCK):  # no two perf legs at once on this host, whichever gate or vtgate runs them
                check = preflight(policy, max(0.0, wait_budget - waited))
                waited += check.waited
                leg: dict[str, Any] = {"index": index, "role": role, "round": number, "host": check.to_json()}
                record["legs"].append(leg)
                if check.noisy:
                    record.update(outcome="noisy", problem="; ".join(check.noisy), noisy_leg=index)
                    break
                request = ProbeRequest(label=role, probe=ref, args=dict(args), env=envs[role])
                key = ProbeKey.of(request, roots[role])
                if ref.callable is not None and not fresh_process:
                    if role not in warm:
                        warm[role] = WarmProbe(key, roots[role], suite_settings)
                    result = warm[role].call(key, leg_timeout)
                else:
                    result = run_one(key, roots[role], suite_settings, leg_timeout, children=children,
                                     ambient=AmbientEnv({}))
            result = check_stale(result, hashes[role], suite_settings.source_tree)
            leg["seconds"] = round(result.seconds, 4)
            if result.observation is None:
                leg["error"] = result.error
                record.update(outcome="leg-failed", problem=result.error, error_kind=result.error_kind, failed_leg=index)
                break
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
                break
    finally:  # nothing outlives the runner, also on an exception
        for worker in warm.values():
            worker.close()
        children.kill_all()
    if hashes["candidate"] is not None:  # the stale guard of the probe layer checks the runner's tree too
        record["meta"] = {"source_tree_hash": hashes["candidate"]}
    record["waited_for_quiet"] = round(waited, 2)
    return record

