"""``perf``: a speed gate a noisy host cannot fool (docs/perf.md). The gate's probe is timed for a
candidate (the gate's own env) and a declared reference (another arm of the same tree, or the same
probe on a reference revision) in interleaved legs, run one at a time by ``vtgate.perf.legs`` after a
quiet-host preflight each; the verdict is the speed ratio candidate/reference with a bootstrap
interval (``vtgate.perf.stats``), looked at after every block of ``rounds`` rounds (at most ``looks``
times, Bonferroni-corrected, within a time ``budget``): green when the interval clears ``min_ratio``,
red when it lies below, and an error of kind ``inconclusive`` when it still straddles it at the end. Every leg's exact outputs (tokens, digests,
counters) must equal the golden's, or the leg is rejected: a fast wrong answer never passes. A noisy
host is an error of kind ``noisy``, never a red or a green.

Perf gates are opt-in: ``vtgate check`` selects them only when ``--gate`` names them or a ``-k``
expression says ``perf`` (``vtgate check -k perf``), so a loaded CI host never makes the ordinary
check flaky."""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from typing import Any

from vtgate.errors import ErrorKind, GateError
from vtgate.kinds._common import first_divergence, short, str_list
from vtgate.perf.hostcheck import policy_problems
from vtgate.perf.legs import OUTPUT_FIELDS, PROCESS_MODES, paired_rounds
from vtgate.perf.stats import STATISTICS, Look, look_confidence, sequential_looks
from vtgate.suite.records import Cases, GateSpec, ProbeRef, ProbeRequest, Verdict

RUNNER = ProbeRef(callable="vtgate.perf.legs:measure")
LABEL = "legs"
DEFAULTS = {"better": "higher", "confidence": 0.95, "rounds": 6, "looks": 4, "budget": 45.0, "workers": 3,
            "warmup": 1, "leg_timeout": 60.0, "statistic": "hodges-lehmann", "process": "warm"}
REFERENCE_KEYS = frozenset({"env", "ref"})
ROLES = ("candidate", "reference")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class PerfKind:
    name = "perf"
    pin_source = "golden"
    opt_in = True  # selected only by --gate NAME or a -k expression naming 'perf' (vtgate.suite.load.select_gates)
    option_keys = frozenset({"metric", "better", "min_ratio", "confidence", "rounds", "looks", "budget", "workers",
                             "statistic", "warmup", "reference", "quiet", "compare", "leg_timeout", "fresh_process",
                             "process"})
    default_probe: ProbeRef | None = None

    def validate(self, options: Mapping[str, Any]) -> list[str]:
        problems = []
        if not isinstance(options.get("metric"), str) or not options["metric"]:
            problems.append('perf gates need metric = "<observation field of a timing>", e.g. metric = "timing.decode_tok_s"')
        if options.get("statistic", DEFAULTS["statistic"]) not in STATISTICS:
            problems.append(f"statistic must be one of {', '.join(STATISTICS)} (docs/perf.md, the statistics)")
        if options.get("better", "higher") not in ("higher", "lower"):
            problems.append('better must be "higher" (tokens/s) or "lower" (seconds per call)')
        ratio: Any = options.get("min_ratio")
        if not (_number(ratio) and ratio > 0):
            problems.append("perf gates need min_ratio = <candidate speed / reference speed it must stay above>, e.g. 0.95")
        confidence = options.get("confidence", DEFAULTS["confidence"])
        if not (_number(confidence) and 0.5 < confidence < 1):
            problems.append("confidence must lie between 0.5 and 1 (e.g. 0.95)")
        for key, least in (("rounds", 3), ("looks", 1), ("workers", 1), ("warmup", 0)):
            value = options.get(key, DEFAULTS[key])
            if not (isinstance(value, int) and not isinstance(value, bool) and value >= least):
                problems.append(f"{key} must be an integer >= {least}")
        budget = options.get("budget", DEFAULTS["budget"])
        if not (_number(budget) and budget > 0):
            problems.append("budget must be a positive number of seconds (no new block of rounds starts past it)")
        timeout = options.get("leg_timeout", DEFAULTS["leg_timeout"])
        if not (_number(timeout) and timeout > 0):
            problems.append("leg_timeout must be a positive number of seconds")
        reference = options.get("reference")
        if not isinstance(reference, Mapping) or not reference or set(reference) - REFERENCE_KEYS:
            problems.append('perf gates need reference = { env = { KNOB = "value" } } (another arm of this tree) '
                            'or reference = { ref = "main" } (a revision; env optional)')
        else:
            env = reference.get("env", {})
            if not (isinstance(env, Mapping) and all(isinstance(v, str) for v in env.values())):
                problems.append('reference.env values are strings, as a shell sets them: { VT_CPU_GEMV_BLAS = "0" }')
            if "ref" in reference and not (isinstance(reference["ref"], str) and reference["ref"].strip()):
                problems.append('reference.ref must name a revision, e.g. "main" or a commit id')
        if "quiet" in options:
            problems += policy_problems(options["quiet"])
        if not isinstance(options.get("fresh_process", False), bool):
            problems.append('fresh_process must be true or false (or say process = "fresh")')
        elif options.get("process", DEFAULTS["process"]) not in PROCESS_MODES:
            problems.append(f"process must be one of {', '.join(repr(m) for m in PROCESS_MODES)}: where each leg runs "
                            "(docs/perf.md, how a gate runs)")
        elif options.get("fresh_process") and options.get("process", "fresh") != "fresh":
            problems.append(f"fresh_process = true contradicts process = {options['process']!r}; keep one: "
                            'process = "fresh"')
        if "compare" in options and not str_list(options["compare"]):
            problems.append('compare must be a list of observation fields, e.g. ["tokens", "digests.stream"]')
        return problems

    def requests(self, spec: GateSpec) -> list[ProbeRequest]:
        if spec.probe is None:
            raise GateError(f"gate '{spec.name}' has no probe", "config")
        options = {**DEFAULTS, **spec.options}
        probe = {"callable": spec.probe.callable} if spec.probe.callable else {"cmd": list(spec.probe.cmd or ())}
        reference = dict(options["reference"])
        args = {
            "probe": probe, "args": dict(spec.args), "metric": options["metric"],
            "candidate": {"env": dict(spec.env)},
            "reference": {"env": dict(reference.get("env", {})), **({"ref": reference["ref"]} if "ref" in reference else {})},
            "rounds": options["rounds"], "warmup": options["warmup"], "leg_timeout": float(options["leg_timeout"]),
            "quiet": options.get("quiet"), "suite": str(spec.source),
            "compare": list(options.get("compare", OUTPUT_FIELDS)),
            "process": "fresh" if options.get("fresh_process") else options["process"],
            "looks": options["looks"], "budget": float(options["budget"]), "workers": options["workers"],
            "min_ratio": float(options["min_ratio"]), "better": options["better"],
            "confidence": float(options["confidence"]), "statistic": options["statistic"],
        }
        return [ProbeRequest(label=LABEL, probe=RUNNER, args=args, env={})]

    def inline_pin(self, spec: GateSpec) -> dict[str, Any]:
        return {}

    # -- judging --------------------------------------------------------------------------------------

    def evaluate(
        self, spec: GateSpec, pin: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]
    ) -> Verdict:
        record = observations[LABEL]
        legs = _usable_legs(spec, record)
        for role in ROLES:
            if not isinstance(pin.get(role), Mapping):
                raise GateError(f"gate '{spec.name}': the golden has no '{role}' outputs; re-bless: "
                                f"vtgate bless {spec.name} --reason \"...\"", "golden")
        for leg in legs:
            difference = _output_difference(pin[leg["role"]], leg.get("outputs", {}))
            if difference is None:
                continue
            where = _leg_name(leg, record)
            if leg["role"] == "reference":
                raise GateError(f"gate '{spec.name}': {where}: outputs differ from the pinned reference outputs "
                                f"({difference}); the reference is not the one pinned, so no ratio is judged "
                                "(fix the reference, or re-bless if it moved on purpose)", "config")
            summary = (f"{where} rejected: outputs differ from the pin ({difference}); "
                       "a fast wrong answer never passes a perf gate")
            return Verdict(False, summary, {"rejected_leg": leg["index"], "difference": difference},
                           {"outputs": "golden"}, Cases(0, 1, (f"leg-{leg['index']}",)))
        options = {**DEFAULTS, **spec.options}
        looks = _looks(spec, legs, options, record)
        final = looks[-1]
        estimate, decision = final.estimate, final.decision
        measured = _measured(looks, options, legs, record)
        line = _line(final, len(looks), options, legs, record)
        if decision == "inconclusive":
            raise GateError(f"inconclusive: {line}; more rounds (rounds, looks, budget) or a quieter host would decide",
                            "inconclusive")
        cases = Cases(estimate.rounds, 0) if decision == "pass" else Cases(0, estimate.rounds, ("ratio",))
        return Verdict(decision == "pass", line, measured,
                       {"min_ratio": options["min_ratio"], "confidence": float(options["confidence"])}, cases)

    def pin_from(self, spec: GateSpec, observations: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        record = observations[LABEL]
        legs = _usable_legs(spec, record)
        pin: dict[str, Any] = {}
        for role in ROLES:
            mine = [leg for leg in legs if leg["role"] == role]
            first = mine[0].get("outputs", {})
            for leg in mine[1:]:
                difference = _output_difference(first, leg.get("outputs", {}))
                if difference is not None:
                    raise GateError(f"gate '{spec.name}': {_leg_name(leg, record)} differs from the first {role} "
                                    f"leg ({difference}); nondeterministic outputs cannot be pinned", "probe")
            pin[role] = dict(first)
        return pin

    def describe_change(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
        changed = [f"{role}.{field}" for role in ROLES for field in sorted(set(old.get(role, {})) | set(new.get(role, {})))
                   if old.get(role, {}).get(field) != new.get(role, {}).get(field)]
        return "exact outputs changed: " + (", ".join(changed) if changed else "none")

    def describe_pin(self, pin: Mapping[str, Any]) -> str:
        fields = sorted(set(pin.get("candidate", {})) | set(pin.get("reference", {})))
        tokens = pin.get("candidate", {}).get("tokens")
        count = f", {len(tokens)} tokens" if isinstance(tokens, list) else ""
        return f"exact outputs of both roles: {', '.join(fields)}{count}"


KIND = PerfKind()


def _leg_name(leg: Mapping[str, Any], record: Mapping[str, Any]) -> str:
    role = leg.get("role", "?")
    when = "warm-up" if leg.get("round") is None else f"round {leg['round'] + 1}"
    text = f"leg {leg.get('index', '?')} ({role}, {when}"
    reference = record.get("reference", {})
    if role == "reference" and reference.get("ref"):
        text += f", {reference['ref']} = {str(reference.get('commit', '?'))[:12]}"
    return text + ")"


def _usable_legs(spec: GateSpec, record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The legs, or the gate error the runner's outcome means (the leg it names, what to do)."""
    outcome = record.get("outcome")
    legs = list(record.get("legs", []))
    problem = record.get("problem") or ""
    if outcome == "measured":
        return legs
    if outcome == "reference-unavailable":
        raise GateError(f"gate '{spec.name}': {problem}", "config")
    failed = next((leg for leg in legs if leg.get("index") == record.get("failed_leg", record.get("noisy_leg"))), None)
    where = _leg_name(failed, record) if failed else "a leg"
    if outcome == "noisy":
        raise GateError(f"gate '{spec.name}': host not quiet before {where}: {problem}; not measured "
                        f"(wait for a quiet window with vtgate check --wait-quiet SECONDS, or set the gate's "
                        f"quiet thresholds; docs/perf.md)", "noisy")
    if outcome == "no-metric":
        raise GateError(f"gate '{spec.name}': {where}: {problem}", "probe")
    if outcome == "leg-failed":
        found = record.get("error_kind")
        kind: ErrorKind = found if found in ("timeout", "stale") else "probe"
        raise GateError(f"gate '{spec.name}': {where} failed: {problem}", kind)
    raise GateError(f"gate '{spec.name}': the leg runner reported outcome {outcome!r}", "probe")


def _output_difference(pinned: Mapping[str, Any], found: Mapping[str, Any]) -> str | None:
    for field, expected in pinned.items():
        if field not in found:
            return f"'{field}' missing"
        actual = found[field]
        if actual == expected:
            continue
        if isinstance(expected, list) and isinstance(actual, list):
            position = first_divergence(expected, actual)
            if position is not None and position < min(len(expected), len(actual)):
                return f"{field} first differ at position {position} ({short(expected[position])} -> {short(actual[position])})"
            return f"{field} length {len(expected)} -> {len(actual)}"
        if isinstance(expected, Mapping) and isinstance(actual, Mapping):
            key = next(k for k in sorted(set(expected) | set(actual)) if expected.get(k) != actual.get(k))
            return f"{field}.{key} {short(expected.get(key, 'missing'))} -> {short(actual.get(key, 'missing'))}"
        return f"{field} {short(expected)} -> {short(actual)}"
    return None


def _looks(spec: GateSpec, legs: list[Mapping[str, Any]], options: Mapping[str, Any],
           record: Mapping[str, Any]) -> list[Look]:
    """The sequential looks at the recorded rounds (the same ones the leg runner took to stop)."""
    candidate, reference, groups = paired_rounds(legs, record.get("process"))
    rounds = int(options["rounds"])
    if len(candidate) < max(2, rounds):
        raise GateError(f"gate '{spec.name}': only {len(candidate)} complete rounds were measured; the first look "
                        f"needs {rounds}", "probe")
    return sequential_looks(candidate, reference, rounds_per_look=rounds, looks=int(options["looks"]),
                            min_ratio=float(options["min_ratio"]), better=options["better"],
                            confidence=float(options["confidence"]), statistic=options["statistic"], groups=groups)


def stage_changes(legs: list[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Per phase and stage: median candidate seconds / median reference seconds - 1 (+0.12: 12% slower)."""
    seconds: dict[tuple[str, str, str], list[float]] = {}
    for leg in legs:
        if leg.get("round") is None or not isinstance(leg.get("stages"), Mapping):
            continue
        for phase, table in leg["stages"].items():
            if isinstance(table, Mapping):
                for stage, value in table.items():
                    if _number(value):
                        seconds.setdefault((phase, stage, leg["role"]), []).append(float(value))
    changes: dict[str, dict[str, float]] = {}
    for (phase, stage, role), values in seconds.items():
        if role != "candidate" or (phase, stage, "reference") not in seconds:
            continue
        reference = statistics.median(seconds[(phase, stage, "reference")])
        if reference > 0:
            changes.setdefault(phase, {})[stage] = statistics.median(values) / reference - 1.0
    return changes


def _stage_text(changes: Mapping[str, Mapping[str, float]]) -> str:
    parts = []
    for phase in ("prefill", "decode", *sorted(set(changes) - {"prefill", "decode"})):
        table = changes.get(phase)
        if table:
            stage, change = max(table.items(), key=lambda item: abs(item[1]))
            parts.append(f"{phase}: {stage} {change:+.1%}")
    return "; stage that moved most: " + ", ".join(parts) if parts else ""


def _host_range(legs: list[Mapping[str, Any]], field: str = "load_per_core") -> tuple[float, float] | None:
    """(min, max) of a host measure over the legs: ``load_per_core`` (recorded) or ``other_cpu_per_core``
    (what the preflight judges: the CPU of processes outside the gate's tree)."""
    loads = [leg["host"][field] for leg in legs if isinstance(leg.get("host"), Mapping)
             and _number(leg["host"].get(field))]
    return (min(loads), max(loads)) if loads else None


def _percent(level: float) -> str:
    return f"{round(level * 100, 2):g}%"


def _line(final: Look, taken: int, options: Mapping[str, Any], legs: list[Mapping[str, Any]],
          record: Mapping[str, Any]) -> str:
    estimate, min_ratio = final.estimate, float(options["min_ratio"])
    looks, confidence = int(options["looks"]), float(options["confidence"])
    relation = {"pass": ">=", "fail": "<", "inconclusive": "straddles"}[final.decision]
    warmups = sum(1 for leg in legs if leg.get("round") is None)
    judged = sum(1 for leg in legs if leg.get("round") is not None and leg["round"] < estimate.rounds)
    text = (f"ratio {estimate.ratio:.3f}, {_percent(estimate.confidence)} one-sided interval [{estimate.low:.3f}, "
            f"{estimate.high:.3f}] {relation} {min_ratio:g}; {estimate.rounds} rounds ({judged} legs + {warmups} "
            f"warm-up)")
    if looks > 1:
        text += f", look {taken} of {looks} ({_percent(confidence)} over all looks, Bonferroni)"
        stopped = record.get("stopped")
        if final.decision == "inconclusive" and isinstance(stopped, str) and stopped.startswith("budget"):
            text += f", stopped by the {float(options['budget']):g} s budget"
    text += f", {estimate.method}"
    host = _host_range(legs)
    if host is not None:
        text += f"; host load {host[0]:.2f}..{host[1]:.2f}/core"
        others = _host_range(legs, "other_cpu_per_core")
        if others is not None:
            text += f", other processes {others[0]:.2f}..{others[1]:.2f} CPU/core"
        if not record.get("policy", {}).get("enforce", True):
            text += " (preflight not enforced)"
    return text + _stage_text(stage_changes(legs))


def _measured(looks: list[Look], options: Mapping[str, Any], legs: list[Mapping[str, Any]],
              record: Mapping[str, Any]) -> dict[str, Any]:
    host = _host_range(legs)
    others = _host_range(legs, "other_cpu_per_core")
    final = looks[-1]
    return {
        **final.estimate.to_json(), "decision": final.decision, "legs": len(legs),
        "looks": [look.to_json() for look in looks], "looks_max": int(options["looks"]),
        "look_confidence": look_confidence(float(options["confidence"]), int(options["looks"])),
        "stopped": record.get("stopped"), "workers": record.get("workers"), "process": record.get("process"),
        "legs_seconds": record.get("legs_seconds"),
        "host_load_per_core": list(host) if host else None,
        "host_other_cpu_per_core": list(others) if others else None,
        "stages": stage_changes(legs),
        "reference": dict(record.get("reference", {})),
        "values": [{"leg": leg["index"], "role": leg["role"], "round": leg.get("round"), "value": leg.get("value"),
                    "worker": leg.get("worker"), "load_per_core": leg.get("host", {}).get("load_per_core"),
                    "other_cpu_per_core": leg.get("host", {}).get("other_cpu_per_core"),
                    "own_processes": leg.get("host", {}).get("own_processes")}
                   for leg in legs],
    }
