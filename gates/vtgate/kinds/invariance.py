"""``invariance``: the probe's outputs must not change across values of knobs that must not affect
numerics. ``invariant_over = { VT_CPU_THREADS = ["1", "2"] }`` sets env knobs one at a time;
``invariant_over_args = { path = ["incremental", "recompute"] }`` does the same for probe args. Every
run is compared with the gate's own run ("baseline") on ``compare`` (default: tokens, margins,
digests, cases: whichever the baseline has); the verdict names the knob value that differs."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from vtgate.errors import GateError
from vtgate.kinds._common import (
    PinlessKind,
    base_request,
    env_values,
    first_divergence,
    is_missing,
    lookup,
    short,
    str_list,
)
from vtgate.suite.records import Cases, GateSpec, ProbeRef, ProbeRequest, Verdict

DEFAULT_COMPARE = ("tokens", "margins", "digests", "cases")


class InvarianceKind(PinlessKind):
    name = "invariance"
    option_keys = frozenset({"invariant_over", "invariant_over_args", "compare"})
    default_probe: ProbeRef | None = None

    def validate(self, options: Mapping[str, Any]) -> list[str]:
        problems = []
        over, over_args = options.get("invariant_over"), options.get("invariant_over_args")
        if over is None and over_args is None:
            problems.append('invariance gates need invariant_over = { KNOB = ["a", "b"] } and/or invariant_over_args')
        if over is not None and not env_values(over):
            problems.append('invariant_over must map each knob to a non-empty list of strings, e.g. { VT_CPU_THREADS = ["1", "2"] }')
        if over_args is not None and not (
            isinstance(over_args, Mapping) and all(isinstance(v, list) and v for v in over_args.values())
        ):
            problems.append("invariant_over_args must map each probe arg to a non-empty list of values")
        if "compare" in options and not str_list(options["compare"]):
            problems.append('compare must be a list of observation fields, e.g. ["digests.stream", "tokens"]')
        return problems

    def requests(self, spec: GateSpec) -> list[ProbeRequest]:
        runs = [base_request(spec)]
        for knob, values in spec.options.get("invariant_over", {}).items():
            runs += [base_request(spec, f"{knob}={value}", env={knob: value}) for value in values]
        for arg, values in spec.options.get("invariant_over_args", {}).items():
            runs += [base_request(spec, f"{arg}={_text(value)}", args={arg: value}) for value in values]
        return runs

    def evaluate(
        self, spec: GateSpec, pin: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]
    ) -> Verdict:
        baseline = observations["baseline"]
        fields = list(spec.options.get("compare", []))
        if not fields:
            fields = [f for f in DEFAULT_COMPARE if f in baseline]
        if not fields:
            raise GateError(
                f"gate '{spec.name}': nothing to compare; the baseline has none of {', '.join(DEFAULT_COMPARE)}",
                "probe",
            )
        labels = [label for label in observations if label != "baseline"]
        differing: list[str] = []
        details: list[str] = []
        for label in labels:
            moved: list[tuple[str, Any, Any]] = []
            for field in fields:
                old, new = lookup(baseline, field), lookup(observations[label], field)
                if is_missing(old):
                    raise GateError(f"gate '{spec.name}': the baseline run has no '{field}'", "probe")
                if old != new:
                    moved.append((field, old, new))
            if moved:
                # Name a readable field (the first token or case that moved) before a digest, which
                # only says that some bits did: the digest is reported when nothing else differs.
                field, old, new = next((m for m in moved if not m[0].startswith("digests")), moved[0])
                differing.append(label)
                details.append(f"{label} differs from baseline: {_diff(field, old, new)}")
        identical = len(labels) - len(differing)
        knobs = "; ".join(
            f"{knob}={','.join(_text(v) for v in values)}"
            for table in ("invariant_over", "invariant_over_args")
            for knob, values in spec.options.get(table, {}).items()
        )
        if not differing:
            summary = f"{identical}/{len(labels)} runs identical to baseline on {', '.join(fields)} ({knobs})"
        else:
            summary = f"{identical}/{len(labels)} runs identical to baseline — " + "; ".join(details[:3])
            if len(details) > 3:
                summary += f" (+{len(details) - 3} more)"
        measured = {label: {f: lookup(observations[label], f) for f in fields if f.startswith("digests")}
                    for label in differing}
        pinned = {"baseline": {f: lookup(baseline, f) for f in fields if f.startswith("digests")}}
        return Verdict(not differing, summary, measured, pinned,
                       Cases(identical, len(differing), tuple(differing)))

    def describe_change(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
        return "invariance gates compare runs with each other; nothing is pinned"

    def describe_pin(self, pin: Mapping[str, Any]) -> str:
        return "runs compared with the baseline"


def _text(value: Any) -> str:
    """Knob values as written in TOML: strings bare, everything else as JSON (true, 16, [1, 2])."""
    return value if isinstance(value, str) else json.dumps(value)


def _diff(field: str, old: Any, new: Any) -> str:
    if is_missing(new):
        return f"'{field}' missing"
    if isinstance(old, list) and isinstance(new, list):
        first = first_divergence(old, new)
        if first is not None and first < len(old) and first < len(new):
            return f"{field} first differ at position {first} ({short(old[first])} -> {short(new[first])})"
        return f"{field} length {len(old)} -> {len(new)}"
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        keys = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
        first = keys[0]
        return f"{field}.{first} {short(old.get(first, 'missing'))} -> {short(new.get(first, 'missing'))}" + (
            f" (+{len(keys) - 1} more)" if len(keys) > 1 else "")
    return f"{field} {short(old)} -> {short(new)}"


KIND = InvarianceKind()
