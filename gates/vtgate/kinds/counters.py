"""``counters``: exact integer counters (dequant-cache hits/misses/evictions), pinned in a golden file.
``counters = ["dequant_misses", ...]`` restricts which counters are pinned (default: all the probe
reports); ``over = { VT_DEQUANT_CACHE_MB = ["0", "1", "64"] }`` pins them once per knob value
("counters per budget"), sharing those runs with any invariance gate over the same knob."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vtgate.errors import GateError
from vtgate.kinds._common import base_request, env_values, require, str_list
from vtgate.suite.records import Cases, GateSpec, ProbeRef, ProbeRequest, Verdict


class CountersKind:
    name = "counters"
    pin_source = "golden"
    option_keys = frozenset({"counters", "over"})
    default_probe: ProbeRef | None = None

    def validate(self, options: Mapping[str, Any]) -> list[str]:
        problems = []
        if "counters" in options and not (str_list(options["counters"]) and options["counters"]):
            problems.append('counters must be a non-empty list of counter names, e.g. ["dequant_misses"]')
        if "over" in options and not env_values(options["over"]):
            problems.append('over must map each knob to a non-empty list of strings, e.g. { VT_DEQUANT_CACHE_MB = ["0", "1"] }')
        return problems

    def requests(self, spec: GateSpec) -> list[ProbeRequest]:
        over = spec.options.get("over")
        if not over:
            return [base_request(spec)]
        return [
            base_request(spec, f"{knob}={value}", env={knob: value})
            for knob, values in over.items()
            for value in values
        ]

    def inline_pin(self, spec: GateSpec) -> dict[str, Any]:
        return {}

    def _counters(self, spec: GateSpec, observation: Mapping[str, Any], label: str) -> dict[str, int]:
        counters = require(observation, "counters", spec, label)
        names = spec.options.get("counters") or sorted(counters)
        missing = [n for n in names if n not in counters]
        if missing:
            raise GateError(f"gate '{spec.name}': run {label} reports no counter '{missing[0]}'", "probe")
        return {n: counters[n] for n in names}

    def pin_from(self, spec: GateSpec, observations: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        return {label: self._counters(spec, obs, label) for label, obs in observations.items()}

    def evaluate(
        self, spec: GateSpec, pin: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]
    ) -> Verdict:
        exact, wrong, texts = [], [], []
        measured: dict[str, dict[str, Any]] = {}
        for label, observation in observations.items():
            if label not in pin:
                raise GateError(
                    f"gate '{spec.name}': the golden has no counters for {label}; "
                    f"re-bless: vtgate bless {spec.name} --reason ...",
                    "golden",
                )
            counters = require(observation, "counters", spec, label)
            wanted = spec.options.get("counters")
            if wanted and set(wanted) != set(pin[label]):
                raise GateError(
                    f"gate '{spec.name}': the suite pins counters {sorted(wanted)} but the golden holds "
                    f"{sorted(pin[label])}; re-bless: vtgate bless {spec.name} --reason ...",
                    "golden",
                )
            measured[label] = {}
            for name, pinned in pin[label].items():
                now = counters.get(name)
                measured[label][name] = now
                case = name if label == "baseline" else f"{label}/{name}"
                if now == pinned:
                    exact.append(case)
                else:
                    wrong.append(case)
                    delta = f" ({now - pinned:+d})" if isinstance(now, int) else ""
                    texts.append(f"{case} {pinned} -> {now}{delta}")
        total = len(exact) + len(wrong)
        if not wrong:
            values = "; ".join(
                (f"{label}: " if label != "baseline" else "") + ", ".join(f"{n} {v}" for n, v in counters.items())
                for label, counters in measured.items()
            )
            summary = f"{total}/{total} counters exact ({values})"
        else:
            summary = f"{len(exact)}/{total} counters exact — " + "; ".join(texts)
        return Verdict(not wrong, summary, measured, dict(pin), Cases(len(exact), len(wrong), tuple(wrong)))

    def describe_change(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
        parts = []
        for label in sorted(set(old) | set(new)):
            before, after = old.get(label, {}), new.get(label, {})
            prefix = "" if label == "baseline" else f"{label}/"
            for name in sorted(set(before) | set(after)):
                if before.get(name) != after.get(name):
                    parts.append(f"{prefix}{name} {before.get(name, '-')} -> {after.get(name, '-')}")
        return "; ".join(parts) if parts else "counters unchanged"

    def describe_pin(self, pin: Mapping[str, Any]) -> str:
        return "; ".join(
            (f"{label}: " if label != "baseline" else "") + ", ".join(f"{n} {v}" for n, v in values.items())
            for label, values in pin.items()
        )


KIND = CountersKind()
