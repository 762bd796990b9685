"""The check itself, as an in-process API (the CLI is a thin layer over ``run_check``): select gates,
load their pins, collect the probe runs their kinds request, run each distinct run once, apply the
stale guard, let each kind judge, and map deliberate reds. Observations stay on the report, per gate,
so vtgate mutate can re-judge perturbed pins (``evaluate_gate``) without re-running probes."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from vtgate.errors import ErrorKind, GateError
from vtgate.exitcodes import ExitCode
from vtgate.goldens import golden_files, load_golden
from vtgate.kinds import get_kind
from vtgate.probes import (
    ProbeKey,
    ProbeResult,
    changed_during_run,
    check_stale,
    expected_tree_hash,
    run_probes,
)
from vtgate.records import Cases, GateSpec, Suite, Verdict
from vtgate.suite import select_gates

Status = Literal["green", "red", "error", "deliberate-red", "unexpected-green"]
FAILING: frozenset[str] = frozenset({"red", "error", "unexpected-green"})


@dataclass(frozen=True)
class GateResult:
    """One gate's outcome. ``observations`` maps the kind's request labels to what the probes returned
    (only the runs that succeeded); ``runs`` maps labels to the shared run keys; ``pin`` is what the
    gate was judged against (golden value, inline pin, or ``{}``)."""

    spec: GateSpec
    status: Status
    summary: str
    seconds: float
    verdict: Verdict | None = None
    error: str | None = None
    error_kind: ErrorKind | None = None
    pin: Mapping[str, Any] | None = None
    observations: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    runs: Mapping[str, ProbeKey] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def failed(self) -> bool:
        return self.status in FAILING

    def to_json(self) -> dict[str, Any]:
        verdict = self.verdict
        cases: Cases | None = verdict.cases if verdict else None
        deliberate = self.spec.deliberate_red
        return {
            "name": self.spec.name,
            "kind": self.spec.kind,
            "tier": self.spec.tier,
            "status": self.status,
            "summary": self.summary,
            "measured": dict(verdict.measured) if verdict else {},
            "pinned": dict(verdict.pinned) if verdict else {},
            "cases": cases.to_json() if cases else None,
            "seconds": round(self.seconds, 3),
            "error": self.error,
            "error_kind": self.error_kind,
            "env": dict(self.spec.env),
            "deliberate_red": {"issue": deliberate.issue, "reason": deliberate.reason} if deliberate else None,
            "golden": str(self.spec.golden) if self.spec.golden else None,
            "line": self.spec.line,
        }


@dataclass(frozen=True)
class CheckReport:
    suite: Suite
    root: Path
    gates: tuple[GateResult, ...]
    seconds: float
    probe_requests: int
    probe_runs: int
    unused_goldens: tuple[Path, ...] = ()

    @property
    def ok(self) -> bool:
        return bool(self.gates) and not any(g.failed for g in self.gates)

    @property
    def shared_runs(self) -> int:
        """Requested runs that were served by a run another request already needed."""
        return self.probe_requests - self.probe_runs

    @property
    def exit_code(self) -> ExitCode:
        if not self.gates:
            return ExitCode.NOTHING
        if any(g.status == "error" for g in self.gates):
            return ExitCode.INTERNAL
        if any(g.failed for g in self.gates):
            return ExitCode.RED
        return ExitCode.OK

    def gate(self, name: str) -> GateResult:
        for result in self.gates:
            if result.name == name:
                return result
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for result in self.gates:
            counts[result.status] = counts.get(result.status, 0) + 1
        return {
            "schema": 1,
            "ok": self.ok,
            "exit_code": int(self.exit_code),
            "suite": str(self.suite.path),
            "root": str(self.root),
            "counts": counts,
            "gates": [g.to_json() for g in self.gates],
            "probe_runs": {"requested": self.probe_requests, "run": self.probe_runs, "shared": self.shared_runs},
            "unused_goldens": [str(p) for p in self.unused_goldens],
            "seconds": round(self.seconds, 3),
        }


def resolve_pin(spec: GateSpec, base: Path | None = None) -> Mapping[str, Any]:
    """The pin a gate is judged against; raises GateError (kind golden) for missing or bad goldens."""
    kind = get_kind(spec.kind)
    if kind.pin_source == "golden":
        assert spec.golden is not None
        return load_golden(spec.golden, spec.name, base).value
    if kind.pin_source == "inline":
        return kind.inline_pin(spec)
    return {}


def apply_deliberate(spec: GateSpec, verdict: Verdict) -> tuple[Status, str]:
    mark = spec.deliberate_red
    if mark is None:
        return ("green" if verdict.passed else "red"), verdict.summary
    if verdict.passed:
        return "unexpected-green", (
            f"unexpected green: {verdict.summary} — retire the mark: remove deliberate_red "
            f"({mark.issue}) from {spec.where} and close the issue if the fix is intended"
        )
    return "deliberate-red", f"deliberate red ({mark.issue}): {verdict.summary}"


def evaluate_gate(
    spec: GateSpec,
    pin: Mapping[str, Any],
    observations: Mapping[str, Mapping[str, Any]],
    seconds: float = 0.0,
    runs: Mapping[str, ProbeKey] | None = None,
) -> GateResult:
    """Judge one gate from observations already in hand (pure; used by run_check and vtgate mutate)."""
    kind = get_kind(spec.kind)
    try:
        verdict = kind.evaluate(spec, pin, observations)
    except GateError as error:
        return GateResult(spec, "error", error.message, seconds, None, error.message, error.kind, pin,
                          observations, runs or {})
    status, summary = apply_deliberate(spec, verdict)
    return GateResult(spec, status, summary, seconds, verdict, None, None, pin, observations, runs or {})


def _error(spec: GateSpec, error: GateError, seconds: float = 0.0, pin: Mapping[str, Any] | None = None,
           runs: Mapping[str, ProbeKey] | None = None) -> GateResult:
    return GateResult(spec, "error", error.message, seconds, None, error.message, error.kind, pin, {}, runs or {})


@dataclass(frozen=True)
class Measurement:
    """Probe results per gate (label -> result), and how many runs were requested vs actually run."""

    results: Mapping[str, Mapping[str, ProbeResult]]
    keys: Mapping[str, Mapping[str, ProbeKey]]
    requested: int
    run: int


def measure(
    specs: Sequence[GateSpec],
    suite: Suite,
    *,
    root: Path,
    jobs: int | None = None,
    extra_env: Mapping[str, str] | None = None,
) -> Measurement:
    """Run every probe the gates need, each distinct run once; stale guard applied."""
    keys: dict[str, dict[str, ProbeKey]] = {}
    timeouts: dict[ProbeKey, float] = {}
    requested = 0
    for spec in specs:
        keys[spec.name] = {}
        for request in get_kind(spec.kind).requests(spec):
            key = ProbeKey.of(request, root, extra_env)
            keys[spec.name][request.label] = key
            timeouts[key] = max(timeouts.get(key, 0.0), spec.timeout)
            requested += 1
    before = expected_tree_hash(root, suite.settings)
    results = run_probes(list(timeouts), root, suite.settings, timeouts=timeouts, jobs=jobs)
    expected = expected_tree_hash(root, suite.settings)
    if before != expected:
        results = {key: changed_during_run(result, suite.settings.source_tree) for key, result in results.items()}
    stale_free = {
        spec.name: {
            label: (check_stale(results[key], expected, suite.settings.source_tree) if request.check_stale else results[key])
            for request in get_kind(spec.kind).requests(spec)
            for label, key in [(request.label, keys[spec.name][request.label])]
        }
        for spec in specs
    }
    return Measurement(stale_free, keys, requested, len(results))


def run_check(
    suite: Suite,
    *,
    root: str | Path | None = None,
    select: Sequence[str] | None = None,
    keyword: str | None = None,
    jobs: int | None = None,
    extra_env: Mapping[str, str] | None = None,
    pins: Mapping[str, Mapping[str, Any]] | None = None,
) -> CheckReport:
    """Check ``suite`` against the code under ``root`` (default: the suite's project).

    ``select``/``keyword`` pick gates like ``--gate``/``-k``; ``extra_env`` is set for every probe run
    under the gates' own pins (vtgate mutate's env mutations); ``pins`` replaces the stored pin of the
    named gates (vtgate mutate's pin perturbations)."""
    started = time.perf_counter()
    root_path = Path(root).resolve() if root is not None else suite.root
    specs = select_gates(suite, list(select) if select else None, keyword)
    results: dict[str, GateResult] = {}
    pinned: dict[str, Mapping[str, Any]] = {}
    to_run: list[GateSpec] = []
    tree_problem = None
    if suite.settings.source_tree and not (root_path / suite.settings.source_tree).is_dir():
        tree_problem = GateError(
            f"[suite] source_tree = '{suite.settings.source_tree}' does not exist under {root_path}; "
            "is --root the right tree?", "config")
    for spec in specs:
        if tree_problem is not None and get_kind(spec.kind).requests(spec)[0].check_stale:
            results[spec.name] = _error(spec, tree_problem)
            continue
        try:
            pinned[spec.name] = pins[spec.name] if pins and spec.name in pins else resolve_pin(spec, suite.root)
        except GateError as error:
            results[spec.name] = _error(spec, error)
            continue
        to_run.append(spec)
    measurement = measure(to_run, suite, root=root_path, jobs=jobs, extra_env=extra_env)
    for spec in to_run:
        runs = measurement.results[spec.name]
        seconds = max((r.seconds for r in runs.values()), default=0.0)
        failed = [(label, r) for label, r in runs.items() if r.error is not None]
        if failed:
            label, first = failed[0]
            run = "" if label == "baseline" else f" [run {label}]"
            run_error = GateError(f"{first.error}{run}", first.error_kind or "probe")
            results[spec.name] = _error(spec, run_error, seconds, pinned[spec.name], measurement.keys[spec.name])
            continue
        observations = {label: r.observation for label, r in runs.items() if r.observation is not None}
        results[spec.name] = evaluate_gate(spec, pinned[spec.name], observations, seconds, measurement.keys[spec.name])
    used = {spec.golden.resolve() for spec in suite.gates if spec.golden is not None}
    unused = tuple(p for p in golden_files(suite.root / suite.settings.goldens) if p.resolve() not in used)
    return CheckReport(
        suite=suite, root=root_path, gates=tuple(results[s.name] for s in specs),
        seconds=time.perf_counter() - started, probe_requests=measurement.requested,
        probe_runs=measurement.run, unused_goldens=unused,
    )
