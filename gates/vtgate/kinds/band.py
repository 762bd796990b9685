"""``band``: each named metric must lie in its [lo, hi]. Tolerant by design: the band itself is the pin
and lives inline in the suite (``bands = { "counters.proposed" = [50, 70] }``), reviewed like code;
``vtgate bless`` does not move bands. A bare name is looked up in ``metrics`` then ``counters``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vtgate.kinds._common import base_request, is_missing, lookup, short
from vtgate.suite.records import Cases, GateSpec, ProbeRef, ProbeRequest, Verdict


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def read_metric(observation: Mapping[str, Any], name: str) -> Any:
    if "." in name:
        return lookup(observation, name)
    for section in ("metrics", "counters"):
        value = lookup(observation, f"{section}.{name}")
        if not is_missing(value):
            return value
    return lookup(observation, name)


class BandKind:
    name = "band"
    pin_source = "inline"
    option_keys = frozenset({"bands"})
    default_probe: ProbeRef | None = None

    def validate(self, options: Mapping[str, Any]) -> list[str]:
        bands = options.get("bands")
        if not isinstance(bands, Mapping) or not bands:
            return ['band gates need bands = { metric = [lo, hi], ... } (e.g. bands = { "counters.accepted" = [45, 60] })']
        problems = []
        for metric, band in bands.items():
            if not (isinstance(band, list) and len(band) == 2 and all(_number(v) for v in band)):
                problems.append(f"bands.{metric} must be [lo, hi] (two numbers)")
            elif band[0] > band[1]:
                problems.append(f"bands.{metric}: lo {band[0]} is above hi {band[1]}")
        return problems

    def requests(self, spec: GateSpec) -> list[ProbeRequest]:
        return [base_request(spec)]

    def inline_pin(self, spec: GateSpec) -> dict[str, Any]:
        return {name: list(band) for name, band in spec.options["bands"].items()}

    def pin_from(self, spec: GateSpec, observations: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        return self.inline_pin(spec)

    def evaluate(
        self, spec: GateSpec, pin: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]
    ) -> Verdict:
        observation = observations["baseline"]
        inside, outside, texts = [], [], []
        measured: dict[str, Any] = {}
        for metric, (lo, hi) in pin.items():
            value = read_metric(observation, metric)
            label = metric.split(".")[-1]
            if is_missing(value) or not _number(value):
                measured[metric] = None
                outside.append(metric)
                texts.append(f"{label} missing from the observation (band [{short(lo)}, {short(hi)}])")
                continue
            measured[metric] = value
            if lo <= value <= hi:
                inside.append(metric)
                texts.append(f"{label} {short(value)} in [{short(lo)}, {short(hi)}]")
            else:
                outside.append(metric)
                side = f"below lo by {short(lo - value)}" if value < lo else f"above hi by {short(value - hi)}"
                texts.append(f"{label} {short(value)} outside [{short(lo)}, {short(hi)}] ({side})")
        passed = not outside
        total = len(pin)
        if passed:
            summary = f"{total}/{total} in band: " + "; ".join(texts)
        else:
            bad = [t for t in texts if "outside" in t or "missing" in t]
            summary = f"{len(inside)}/{total} in band — " + "; ".join(bad)
        return Verdict(passed, summary, measured, dict(pin), Cases(len(inside), len(outside), tuple(outside)))

    def describe_change(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
        return "bands are pinned inline in the suite"

    def describe_pin(self, pin: Mapping[str, Any]) -> str:
        return ", ".join(f"{k} in [{short(v[0])}, {short(v[1])}]" for k, v in pin.items())


KIND = BandKind()
