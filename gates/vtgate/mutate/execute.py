"""Run the mutation matrix: one baseline check, every env/patch mutation as a check under its extra
env or from its patched copy, and every pin mutation and built-in control as a re-judgement of the
baseline's observations (``evaluate_gate``, no probe run).

All probe runs of all mutations go into one pool of ``jobs`` workers and are keyed like ``vtgate
check`` keys them (``ProbeKey``: probe, args, env, root), so a run two mutations need (or a mutation
and the baseline: a gate whose env pin overrides the mutation's knob) runs once. Gate assembly is the
same as ``run_check``'s: the stale guard per root, a failed run makes its gate an error, each kind
judges through ``evaluate_gate``. A mutation kills a gate when the gate is green at baseline and red
under the mutation; an error (a crash, a stale copy) is never a kill."""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import psutil

from vtgate.errors import GateError, SuiteError
from vtgate.exitcodes import ExitCode
from vtgate.kinds import get_kind
from vtgate.kinds._common import is_missing, lookup
from vtgate.mutate.controls import PinChange, PinOpError, apply_change, compile_pin_op, controls_for
from vtgate.mutate.copies import Scratch, patched_files
from vtgate.mutate.spec import ANY_GATE, ArmsSource, Mutation, Outcome, load_declarations
from vtgate.probes import ProbeKey, ProbeResult, check_stale, run_one
from vtgate.records import GateSpec, ProbeRef, ProbeRequest, Suite
from vtgate.runner import GateResult, evaluate_gate, resolve_pin
from vtgate.suite import select_gates
from vtgate.treehash import source_tree_hash

Actual = Literal["red", "green", "error"]
# Probes whose observation cannot depend on the environment: the env-doc checker reads source files.
# Under an env mutation their run is the baseline's (shared), not a rerun.
ENV_BLIND_PROBES = frozenset({ProbeRef(callable="vtgate.kinds.envdoc:observe")})
Progress = Callable[[str], None]


class ArmsError(Exception):
    """The engine's arm registry could not be read (the arms probe failed or printed the wrong shape)."""


def actual_of(result: GateResult) -> Actual:
    if result.status == "error" or result.verdict is None:
        return "error"
    return "green" if result.verdict.passed else "red"


@dataclass(frozen=True)
class MutationResult:
    """What one mutation did: per gate red/green/error, whether its expectations held (and why not)."""

    mutation: Mutation
    actual: Mapping[str, Actual]
    results: Mapping[str, GateResult]
    kills: tuple[str, ...]
    met: bool
    unmet: tuple[str, ...]
    observed: Mapping[str, Mapping[str, Any]]
    seconds: float
    proof: Mapping[str, Any] | None = None
    error: str | None = None

    @property
    def name(self) -> str:
        return self.mutation.name

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.mutation.name,
            "kind": self.mutation.kind,
            "expected": dict(self.mutation.expected),
            "actual": dict(self.actual),
            "met": self.met,
            "origin": self.mutation.origin,
            "description": self.mutation.description,
            "kills": list(self.kills),
            "unmet": list(self.unmet),
            "seconds": round(self.seconds, 3),
        }
        if self.mutation.env:
            data["env"] = dict(self.mutation.env)
        if self.mutation.patch:
            data["patch"] = str(self.mutation.patch)
        if self.observed:
            data["observed"] = {g: dict(v) for g, v in self.observed.items()}
        if self.proof:
            data["proof"] = dict(self.proof)
        if self.error:
            data["error"] = self.error
        summaries = {name: r.summary.split("\n--- probe stderr")[0] for name, r in self.results.items()
                     if self.actual.get(name) != "green" or name in self.mutation.expected}
        if summaries:
            data["summaries"] = summaries
        return data


@dataclass(frozen=True)
class MutateReport:
    suite: Suite
    root: Path
    gates: tuple[GateSpec, ...]
    baseline: Mapping[str, GateResult]
    mutations: tuple[MutationResult, ...]
    seconds: float
    probe_requests: int
    probe_runs: int
    vacuous: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    problem: str | None = None  # why the matrix could not be built (baseline not green)

    @property
    def kills(self) -> dict[str, list[str]]:
        table: dict[str, list[str]] = {spec.name: [] for spec in self.gates}
        for result in self.mutations:
            for gate in result.kills:
                table[gate].append(result.name)
        return table

    @property
    def kill_nothing(self) -> list[str]:
        """Mutations that expected a kill (or are run mutations) but killed no gate."""
        return [r.name for r in self.mutations if not r.kills and r.error is None
                and any(want == "red" and (gate == ANY_GATE or gate in r.actual)
                        for gate, want in r.mutation.expected.items())]

    @property
    def shared_runs(self) -> int:
        return self.probe_requests - self.probe_runs

    @property
    def errors(self) -> list[str]:
        found = [f"baseline: {name}" for name, r in self.baseline.items() if r.status == "error"]
        for result in self.mutations:
            if result.error:
                found.append(f"{result.name}: {result.error}")
            found += [f"{result.name}: {gate}" for gate, a in result.actual.items() if a == "error"]
        return found

    @property
    def exit_code(self) -> ExitCode:
        if not self.gates:
            return ExitCode.NOTHING
        if self.errors:
            return ExitCode.INTERNAL
        if self.problem or self.vacuous or any(not r.met for r in self.mutations):
            return ExitCode.RED
        return ExitCode.OK

    @property
    def ok(self) -> bool:
        return self.exit_code == ExitCode.OK

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": 1,
            "ok": self.ok,
            "exit_code": int(self.exit_code),
            "suite": str(self.suite.path),
            "root": str(self.root),
            "baseline": {name: r.status for name, r in self.baseline.items()},
            "problem": self.problem,
            "mutations": [r.to_json() for r in self.mutations],
            "kills": self.kills,
            "vacuous": sorted(self.vacuous),
            "vacuous_reasons": {g: list(v) for g, v in sorted(self.vacuous.items())},
            "kill_nothing": self.kill_nothing,
            "errors": self.errors,
            "probe_runs": {"requested": self.probe_requests, "run": self.probe_runs, "shared": self.shared_runs},
            "seconds": round(self.seconds, 3),
        }


class SharedRuns:
    """Each distinct ProbeKey runs once across the whole matrix, ``jobs`` at a time."""

    def __init__(self, suite: Suite, jobs: int) -> None:
        self.settings = suite.settings
        self.pool = ThreadPoolExecutor(max_workers=jobs)
        self.futures: dict[ProbeKey, Future[ProbeResult]] = {}
        self.requested = 0
        self.preexisting = {child.pid for child in psutil.Process().children(recursive=True)}

    def request(self, key: ProbeKey, timeout: float) -> Future[ProbeResult]:
        self.requested += 1
        if key not in self.futures:
            self.futures[key] = self.pool.submit(run_one, key, Path(key.root), self.settings, timeout)
        return self.futures[key]

    def stop(self, kill: bool = False) -> None:
        """Cancel what has not started; with ``kill`` (an interruption), also kill the probe processes
        this run started (they run in their own sessions, so a terminal's Ctrl-C does not reach them)."""
        for future in self.futures.values():
            future.cancel()
        if not kill:
            self.pool.shutdown(wait=True, cancel_futures=True)
            return
        with contextlib.suppress(psutil.Error):
            children = [c for c in psutil.Process().children(recursive=True) if c.pid not in self.preexisting]
            for child in children:
                with contextlib.suppress(psutil.Error):
                    child.kill()
            psutil.wait_procs(children, timeout=5)
        self.pool.shutdown(wait=True, cancel_futures=True)


@dataclass
class PlannedRun:
    """The probe runs of one check (baseline or a run mutation), submitted and not yet collected."""

    root: Path
    expected_hash: str | None
    runs: dict[str, list[tuple[ProbeRequest, ProbeKey, Future[ProbeResult]]]]
    problem: GateError | None = None


def plan_run(specs: Sequence[GateSpec], suite: Suite, root: Path, shared: SharedRuns,
             extra_env: Mapping[str, str] | None = None) -> PlannedRun:
    settings = suite.settings
    problem = None
    expected = None
    if settings.source_tree:
        if not (root / settings.source_tree).is_dir():
            problem = GateError(f"[suite] source_tree = '{settings.source_tree}' does not exist under {root}; "
                                "is --root the right tree?", "config")
        else:
            expected = source_tree_hash(root / settings.source_tree)
    runs: dict[str, list[tuple[ProbeRequest, ProbeKey, Future[ProbeResult]]]] = {}
    for spec in specs:
        requests = get_kind(spec.kind).requests(spec)
        if problem is not None and requests[0].check_stale:
            continue
        runs[spec.name] = []
        for request in requests:
            key = ProbeKey.of(request, root, None if request.probe in ENV_BLIND_PROBES else extra_env)
            runs[spec.name].append((request, key, shared.request(key, spec.timeout)))
    return PlannedRun(root, expected, runs, problem)


def collect_run(planned: PlannedRun, specs: Sequence[GateSpec], suite: Suite,
                pins: Mapping[str, Mapping[str, Any]]) -> dict[str, GateResult]:
    """Judge every gate of a planned run, exactly as run_check does."""
    results: dict[str, GateResult] = {}
    for spec in specs:
        if spec.name not in planned.runs:
            error = planned.problem or GateError("not run", "config")
            results[spec.name] = GateResult(spec, "error", error.message, 0.0, None, error.message, error.kind)
            continue
        runs: dict[str, ProbeResult] = {}
        keys: dict[str, ProbeKey] = {}
        for request, key, future in planned.runs[spec.name]:
            result = future.result()
            if request.check_stale:
                result = check_stale(result, planned.expected_hash, suite.settings.source_tree)
            runs[request.label], keys[request.label] = result, key
        seconds = max((r.seconds for r in runs.values()), default=0.0)
        failed = [(label, r) for label, r in runs.items() if r.error is not None]
        if failed:
            label, first = failed[0]
            where = "" if label == "baseline" else f" [run {label}]"
            message = f"{first.error}{where}"
            results[spec.name] = GateResult(spec, "error", message, seconds, None, message,
                                            first.error_kind or "probe", pins.get(spec.name), {}, keys)
            continue
        observations = {label: r.observation for label, r in runs.items() if r.observation is not None}
        results[spec.name] = evaluate_gate(spec, pins[spec.name], observations, seconds, keys)
    return results


def read_arms(source: ArmsSource, suite: Suite, root: Path) -> list[dict[str, Any]]:
    """Ask the engine for its arm registry (through its own probe, with the tree's PYTHONPATH)."""
    probe = source.probe
    if probe.cmd and probe.cmd[0] == "python":
        probe = ProbeRef(cmd=(sys.executable, *probe.cmd[1:]))
    key = ProbeKey(probe, "{}", (), str(root))
    result = run_one(key, root, suite.settings, suite.settings.timeout)
    if result.error is not None or result.observation is None:
        raise ArmsError(f"mutation '{source.name}': the arm registry probe failed: {result.error}")
    arms = result.observation.get("arms")
    if not isinstance(arms, list) or not all(isinstance(a, Mapping) and isinstance(a.get("name"), str)
                                             and "default" in a for a in arms):
        shown = json.dumps(result.observation)[:200]
        raise ArmsError(f"mutation '{source.name}': the arm registry probe printed {shown}; expected "
                        '{"arms": [{"name": ..., "knob": "VT_..." or null, "default": true|false}, ...]}')
    return [dict(a) for a in arms]


def arm_mutations(source: ArmsSource, arms: Sequence[Mapping[str, Any]]) -> list[Mutation]:
    """"This opt-in arm is the default": its knob set for every run; at least one gate must go red."""
    mutations = []
    for arm in arms:
        knob = arm.get("knob")
        if arm.get("default") or not isinstance(knob, str) or not knob:
            continue
        label = f"{arm['kernel']}.{arm['name']}" if arm.get("kernel") else str(arm["name"])
        expected: dict[str, Outcome] = {ANY_GATE: "red"}
        description = f"{knob}={source.on}: the opt-in arm as the default"
        if arm.get("differs_here") is False:  # a host-chosen order that, on this host, is the default's
            expected = {}
            description += ("; the registry measured it bit-identical with the default on this host, so no "
                            "gate can tell them apart here and nothing is expected")
        mutations.append(Mutation(
            name=f"arm-default:{label}", kind="auto", expected=expected, env={knob: source.on},
            description=description, origin="arm"))
    return mutations


def _observed(mutation: Mutation, results: Mapping[str, GateResult]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    observed: dict[str, dict[str, Any]] = {}
    unmet: list[str] = []
    for gate, fields in mutation.expect_observed.items():
        result = results.get(gate)
        observations = result.observations if result else {}
        observation = observations.get("baseline") or next(iter(observations.values()), {})
        observed[gate] = {}
        for dotted, want in fields.items():
            value = lookup(observation, dotted)  # list positions too: tokens.82
            got = None if is_missing(value) else value
            observed[gate][dotted] = got
            if got != want:
                unmet.append(f"{gate}: {dotted} measured {got!r}, expected {want!r}")
    return observed, unmet


def judge_mutation(mutation: Mutation, results: Mapping[str, GateResult], baseline: Mapping[str, GateResult],
                   seconds: float, proof: Mapping[str, Any] | None = None, partial: bool = False) -> MutationResult:
    """``partial``: only some of the suite's gates were selected, so "at least one gate red" cannot be
    judged (the gate it kills may not be selected) and is not counted as unmet."""
    actual = {name: actual_of(r) for name, r in results.items()}
    green_before = {name for name, r in baseline.items() if actual_of(r) == "green"}
    kills = tuple(name for name, a in actual.items() if a == "red" and name in green_before)
    unmet: list[str] = []
    for gate, want in mutation.expected.items():
        if gate == ANY_GATE:
            if want == "red" and not kills and not partial:
                unmet.append("expected at least one gate red; every gate survived")
            if want == "green" and kills:
                unmet.append(f"expected every gate green; red: {', '.join(kills)}")
            continue
        got = actual.get(gate)
        if got is None:
            continue  # gate not selected in this run
        if got != want:
            summary = results[gate].summary.split("\n--- probe stderr")[0]
            unmet.append(f"{gate}: expected {want}, got {got} ({summary})")
    observed, observed_unmet = _observed(mutation, results)
    unmet += observed_unmet
    return MutationResult(mutation, actual, dict(results), kills, not unmet, tuple(unmet), observed, seconds, proof)


def _pin_result(mutation: Mutation, change: PinChange | None, baseline: Mapping[str, GateResult],
                pins: Mapping[str, Mapping[str, Any]], error: str | None = None) -> MutationResult:
    started = time.perf_counter()
    gate = change.gate if change else (mutation.pin.gate if mutation.pin else "")
    base = baseline[gate]
    if change is None:
        return MutationResult(mutation, {gate: "error"}, {}, (), False, (f"{gate}: {error}",), {}, 0.0, None, error)
    pin, observations = apply_change(change, pins[gate], base.observations)
    result = evaluate_gate(base.spec, pin, observations)
    return judge_mutation(mutation, {gate: result}, {gate: base}, time.perf_counter() - started)


def run_mutate(
    suite: Suite,
    *,
    root: str | Path | None = None,
    select: Sequence[str] | None = None,
    keyword: str | None = None,
    only: Sequence[str] | None = None,
    jobs: int | None = None,
    auto: bool = True,
    progress: Progress | None = None,
) -> MutateReport:
    """Build the kill matrix of ``suite`` against the code under ``root``. Raises SuiteError for bad
    declarations and copies.PatchError for a patch that does not apply (both: exit 2)."""
    started = time.perf_counter()
    say = progress or (lambda message: None)
    declarations = load_declarations(suite)
    root_path = Path(root).resolve() if root is not None else suite.root
    specs = select_gates(suite, list(select) if select else None, keyword)
    names = {spec.name for spec in specs}
    declared = list(declarations.mutations)
    if only:
        known = {m.name for m in declared}
        unknown = [n for n in only if n not in known]
        if unknown:
            raise SuiteError(f"{suite.path}: no mutation named '{unknown[0]}' (declared: {', '.join(sorted(known)) or 'none'})")
        declared = [m for m in declared if m.name in only]
    declared = [m for m in declared if (m.pin is None or m.pin.gate in names)
                and (not m.expected or any(g == ANY_GATE or g in names for g in m.expected))]
    if not specs:
        return MutateReport(suite, root_path, (), {}, (), time.perf_counter() - started, 0, 0)

    pins: dict[str, Mapping[str, Any]] = {}
    pin_errors: dict[str, GateError] = {}
    for spec in specs:
        try:
            pins[spec.name] = resolve_pin(spec, suite.root)
        except GateError as error:
            pin_errors[spec.name] = error
    run_specs = [s for s in specs if s.name not in pin_errors]
    workers = max(1, jobs or psutil.cpu_count() or 1)
    shared = SharedRuns(suite, workers)
    scratch = Scratch()
    try:
        with scratch:
            baseline_plan = plan_run(run_specs, suite, root_path, shared)
            planned: list[tuple[Mutation, PlannedRun, dict[str, Any] | None]] = []
            for mutation in declared:
                if mutation.kind == "env":
                    planned.append((mutation, plan_run(run_specs, suite, root_path, shared, mutation.env), None))
                elif mutation.kind == "patch":
                    assert mutation.patch is not None
                    shown = _shown(mutation.patch, suite.root)
                    say(f"copying {root_path} and applying {shown}")
                    copy = scratch.patched_copy(root_path, mutation.name, mutation.patch, shown)
                    run = plan_run(run_specs, suite, copy, shared)
                    proof = {"copy": str(copy), "source_tree_hash": run.expected_hash,
                             "user_tree_hash": baseline_plan.expected_hash,
                             "differs": run.expected_hash != baseline_plan.expected_hash,
                             "files": patched_files(mutation.patch)}
                    planned.append((mutation, run, proof))
            if auto and declarations.arms is not None:
                arms = read_arms(declarations.arms, suite, root_path)
                for mutation in arm_mutations(declarations.arms, arms):
                    planned.append((mutation, plan_run(run_specs, suite, root_path, shared, mutation.env), None))
            say(f"{len(shared.futures)} distinct probe runs for {shared.requested} requests "
                f"(baseline + {len(planned)} run mutations), {workers} at a time")
            baseline = collect_run(baseline_plan, run_specs, suite, pins)
            for name, error in pin_errors.items():
                spec = suite.gate(name)
                baseline[name] = GateResult(spec, "error", error.message, 0.0, None, error.message, error.kind)
            baseline = {spec.name: baseline[spec.name] for spec in specs}
            broken = [n for n, r in baseline.items() if r.status in ("red", "unexpected-green", "error")]
            if broken:
                shared.stop()
                problem = ("the baseline is not green, so kills cannot be told from failures: "
                           + "; ".join(f"{n} {baseline[n].status}" for n in broken)
                           + " — make 'vtgate check' pass first")
                return MutateReport(suite, root_path, tuple(specs), baseline, (), time.perf_counter() - started,
                                    shared.requested, len(shared.futures), problem=problem)
            say("baseline green; judging mutations")
            results: list[MutationResult] = []
            for mutation, run, proof in planned:
                gate_results = collect_run(run, run_specs, suite, pins)
                seconds = max((r.seconds for r in gate_results.values()), default=0.0)
                result = judge_mutation(mutation, gate_results, baseline, seconds, proof,
                                        partial=len(specs) < len(suite.gates))
                results.append(result)
                say(f"{mutation.name}: {'met' if result.met else 'UNMET'}; kills {len(result.kills)}")
            for mutation in declared:
                if mutation.kind != "pin":
                    continue
                assert mutation.pin is not None
                base = baseline[mutation.pin.gate]
                try:
                    change = compile_pin_op(mutation.pin, base.spec, pins[mutation.pin.gate], base.observations)
                except (PinOpError, KeyError, TypeError, ValueError) as error:
                    results.append(_pin_result(mutation, None, baseline, pins,
                                               f"pin mutation does not fit the baseline: {error}"))
                    continue
                described = replace(mutation, description=mutation.description or change.summary)
                results.append(_pin_result(described, change, baseline, pins))
            controls_by_gate: dict[str, list[str]] = {}
            if auto:
                for spec in specs:
                    base = baseline[spec.name]
                    if actual_of(base) != "green":
                        continue
                    for control in controls_for(spec, pins[spec.name], base.observations):
                        results.append(_pin_result(control.as_mutation(), control.change, baseline, pins))
                        if control.expected == "red":
                            controls_by_gate.setdefault(spec.name, []).append(control.name)
            shared.stop()
    except BaseException:
        shared.stop(kill=True)
        scratch.close()
        raise
    vacuous = _vacuous(specs, baseline, results, controls_by_gate)
    return MutateReport(suite, root_path, tuple(specs), baseline, tuple(results), time.perf_counter() - started,
                        shared.requested, len(shared.futures), vacuous)


def _vacuous(specs: Sequence[GateSpec], baseline: Mapping[str, GateResult], results: Sequence[MutationResult],
             controls: Mapping[str, list[str]]) -> dict[str, tuple[str, ...]]:
    """A gate green at baseline is vacuous when it survives one of its own negative controls, or when
    no mutation at all kills it."""
    by_name = {r.name: r for r in results}
    vacuous: dict[str, tuple[str, ...]] = {}
    for spec in specs:
        if actual_of(baseline[spec.name]) != "green" or spec.deliberate_red is not None:
            continue
        reasons = [f"survives its own negative control {name} ({by_name[name].mutation.description})"
                   for name in controls.get(spec.name, []) if by_name[name].actual.get(spec.name) == "green"]
        if not any(spec.name in r.kills for r in results):
            reasons.append("no mutation kills it")
        if reasons:
            vacuous[spec.name] = tuple(reasons)
    return vacuous


def _shown(path: Path, base: Path) -> str:
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)
