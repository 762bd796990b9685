"""Run the mutation matrix: one baseline check, every env/patch mutation as a check under its extra
env or from its patched copy, and every pin mutation and built-in control as a re-judgement of the
baseline's observations (``evaluate_gate``, no probe run).

Every check of the matrix goes through the probe layer (``vtgate.run.check``): all probe runs go into
one ``SharedRuns`` pool of ``jobs`` workers keyed like ``vtgate check`` keys them (``ProbeKey``:
probe, args, env, root), so a run two mutations need (or a mutation and the baseline: a gate whose
env pin overrides the mutation's knob) runs once; ``plan_check`` / ``judge_check`` apply the same
stale guards (per root, including a tree that changed during the run) and the same gate assembly as
``run_check``. A mutation kills a gate when the gate is green at baseline and red under the
mutation; an error (a crash, a stale copy) is never a kill."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from vtgate.errors import GateError, SuiteError
from vtgate.exitcodes import ExitCode
from vtgate.kinds._common import is_missing, lookup
from vtgate.mutate.controls import PinChange, PinOpError, apply_change, compile_pin_op, controls_for
from vtgate.mutate.copies import Scratch, patched_files
from vtgate.mutate.spec import ANY_GATE, ArmsSource, Mutation, Outcome, load_declarations
from vtgate.run.check import (
    GateResult,
    PlannedCheck,
    evaluate_gate,
    judge_check,
    plan_check,
    resolve_pins,
    shared_runs,
)
from vtgate.run.execute import ProbeKey, Progress, SharedRuns, interpreter
from vtgate.suite.load import require_artifacts, select_gates
from vtgate.suite.records import GateSpec, ProbeRef, Suite

Actual = Literal["red", "green", "error"]


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
    partial: str | None = None  # why "no mutation kills it" was not judged (-m, --no-auto, gate selection)

    @property
    def ambient_env(self) -> dict[str, str]:
        """The knobs of the caller's shell that reached the baseline's probe runs."""
        found: dict[str, str] = {}
        for result in self.baseline.values():
            found.update(result.ambient_env)
        return dict(sorted(found.items()))

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
            "partial": self.partial,
            "kill_nothing": self.kill_nothing,
            "errors": self.errors,
            "ambient_env": self.ambient_env,
            "probe_runs": {"requested": self.probe_requests, "run": self.probe_runs, "shared": self.shared_runs},
            "seconds": round(self.seconds, 3),
        }


def read_arms(source: ArmsSource, suite: Suite, root: Path, shared: SharedRuns) -> list[dict[str, Any]]:
    """Ask the engine for its arm registry (through its own probe, with the tree's PYTHONPATH)."""
    probe = source.probe
    if probe.cmd and probe.cmd[0] == "python":  # as {python}: the probe interpreter
        probe = ProbeRef(cmd=(interpreter(suite.settings), *probe.cmd[1:]))
    key = ProbeKey(probe, "{}", (), str(root))
    result = shared.run_now(key, suite.settings.timeout)
    if result.error is not None or result.observation is None:
        raise ArmsError(f"mutation '{source.name}': the arm registry probe failed: {result.error}")
    arms = result.observation.get("arms")
    if not isinstance(arms, list) or not all(isinstance(a, Mapping) and isinstance(a.get("name"), str)
                                             and "default" in a for a in arms):
        shown = json.dumps(result.observation)[:200]
        raise ArmsError(f"mutation '{source.name}': the arm registry probe printed {shown}; expected "
                        '{"arms": [{"name": ..., "knob": "VT_..." or null, "default": true|false}, ...]}')
    return [dict(a) for a in arms]


def arm_values(source: ArmsSource, arm: Mapping[str, Any], knob: str) -> tuple[str, ...]:
    """The values that select an opt-in arm: the registry entry's own ``on`` (a string or a list),
    else the arms table's value for this knob, else its ``on`` for every knob."""
    own = arm.get("on")
    if isinstance(own, str) and own:
        return (own,)
    if isinstance(own, list) and own and all(isinstance(v, str) for v in own):
        return tuple(own)
    return source.on_values.get(knob, (source.on,))


def arm_mutations(source: ArmsSource, arms: Sequence[Mapping[str, Any]]) -> list[Mutation]:
    """"This opt-in arm is the default": its knob set for every run (one mutation per value that
    selects it); at least one gate must go red."""
    mutations = []
    for arm in arms:
        knob = arm.get("knob")
        if arm.get("default") or not isinstance(knob, str) or not knob:
            continue
        label = f"{arm['kernel']}.{arm['name']}" if arm.get("kernel") else str(arm["name"])
        values = arm_values(source, arm, knob)
        for value in values:
            name = f"arm-default:{label}" if len(values) == 1 else f"arm-default:{label}={value}"
            expected: dict[str, Outcome] = {ANY_GATE: "red"}
            description = f"{knob}={value}: the opt-in arm as the default"
            if arm.get("differs_here") is False:  # a host-chosen order that, on this host, is the default's
                expected = {}
                description += ("; the registry measured it bit-identical with the default on this host, so no "
                                "gate can tell them apart here and nothing is expected")
            mutations.append(Mutation(
                name=name, kind="auto", expected=expected, env={knob: value},
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
    isolate_env: bool | None = None,
    progress: Progress | None = None,
) -> MutateReport:
    """Build the kill matrix of ``suite`` against the code under ``root``. Raises SuiteError for bad
    declarations and copies.PatchError for a patch that does not apply (both: exit 2). ``isolate_env``
    and ``progress`` as for ``run_check``."""
    started = time.perf_counter()
    declarations = load_declarations(suite)
    root_path = Path(root).resolve() if root is not None else suite.root
    require_artifacts(suite, root_path)
    specs = select_gates(suite, list(select) if select else None, keyword)
    names = {spec.name for spec in specs}
    declared = list(declarations.mutations)
    every_declared = len(declared)
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

    resolved = resolve_pins(specs, suite)
    pins = {name: pin for name, pin in resolved.items() if not isinstance(pin, GateError)}
    partial = len(specs) < len(suite.gates)
    scratch = Scratch(suite.settings.artifacts, root_path)
    shared = shared_runs(suite, jobs=jobs, isolate_env=isolate_env, progress=progress)
    try:
        with scratch:
            baseline_plan = plan_check(specs, suite, root_path, shared, pins=resolved)
            planned: list[tuple[Mutation, PlannedCheck, dict[str, Any] | None]] = []
            for mutation in declared:
                if mutation.kind == "env":
                    planned.append((mutation, plan_check(specs, suite, root_path, shared, pins=resolved, extra_env=mutation.env), None))
                elif mutation.kind == "patch":
                    assert mutation.patch is not None
                    shown = _shown(mutation.patch, suite.root)
                    shared.note(f"copying the tree and applying {shown}")
                    copy = scratch.patched_copy(root_path, mutation.name, mutation.patch, shown)
                    run = plan_check(specs, suite, copy, shared, pins=resolved)
                    patch_proof = {"copy": str(copy), "source_tree_hash": run.tree_hash,
                                   "user_tree_hash": baseline_plan.tree_hash,
                                   "differs": run.tree_hash != baseline_plan.tree_hash,
                                   "files": patched_files(mutation.patch)}
                    planned.append((mutation, run, patch_proof))
            if auto and declarations.arms is not None:
                arms = read_arms(declarations.arms, suite, root_path, shared)
                for mutation in arm_mutations(declarations.arms, arms):
                    planned.append((mutation, plan_check(specs, suite, root_path, shared, pins=resolved, extra_env=mutation.env), None))
            baseline = judge_check(baseline_plan, specs, suite, shared, resolved)
            broken = [n for n, r in baseline.items() if r.status in ("red", "unexpected-green", "error")]
            if broken:
                shared.stop()
                problem = ("the baseline is not green, so kills cannot be told from failures: "
                           + "; ".join(f"{n} {baseline[n].status}" for n in broken)
                           + " — make 'vtgate check' pass first")
                return MutateReport(suite, root_path, tuple(specs), baseline, (), time.perf_counter() - started,
                                    shared.requested, shared.distinct, problem=problem)
            results: list[MutationResult] = []
            for mutation, run, proof in planned:
                shared.note(f"judging {mutation.name}")
                gate_results = judge_check(run, specs, suite, shared, resolved)
                seconds = max((r.seconds for r in gate_results.values()), default=0.0)
                results.append(judge_mutation(mutation, gate_results, baseline, seconds, proof, partial=partial))
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
    partial_reason = _partial_reason(only, auto, len(declared) < every_declared)
    vacuous = _vacuous(specs, baseline, results, controls_by_gate, whole_matrix=partial_reason is None)
    return MutateReport(suite, root_path, tuple(specs), baseline, tuple(results), time.perf_counter() - started,
                        shared.requested, shared.distinct, vacuous, partial=partial_reason)


def _partial_reason(only: Sequence[str] | None, auto: bool, dropped: bool) -> str | None:
    """Why this run is not the whole matrix, so "no mutation kills it" cannot be concluded."""
    reasons = []
    if only:
        reasons.append("only the mutations named with -m ran")
    if not auto:
        reasons.append("--no-auto skipped the negative controls and arm mutations")
    if dropped:
        reasons.append("the gate selection left out mutations that expect other gates")
    return "; ".join(reasons) or None


def _vacuous(specs: Sequence[GateSpec], baseline: Mapping[str, GateResult], results: Sequence[MutationResult],
             controls: Mapping[str, list[str]], *, whole_matrix: bool = True) -> dict[str, tuple[str, ...]]:
    """A gate green at baseline is vacuous when it survives one of its own negative controls, or (only
    judged when the whole matrix ran) when no mutation at all kills it."""
    by_name = {r.name: r for r in results}
    vacuous: dict[str, tuple[str, ...]] = {}
    for spec in specs:
        if actual_of(baseline[spec.name]) != "green" or spec.deliberate_red is not None:
            continue
        reasons = [f"survives its own negative control {name} ({by_name[name].mutation.description})"
                   for name in controls.get(spec.name, []) if by_name[name].actual.get(spec.name) == "green"]
        if whole_matrix and not any(spec.name in r.kills for r in results):
            reasons.append("no mutation kills it")
        if reasons:
            vacuous[spec.name] = tuple(reasons)
    return vacuous


def _shown(path: Path, base: Path) -> str:
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)
