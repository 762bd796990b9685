"""Small helpers shared by the kinds: reading observation fields, stream digests, first divergences,
and number formatting that reads well in a verdict."""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from vtgate.errors import GateError
from vtgate.suite.records import GateSpec, ProbeRequest

_MISSING = object()


class PinlessKind:
    """Kinds that compare runs with each other (``pin_source = "none"``): nothing is pinned inline
    and nothing is measured into a golden."""

    pin_source: Literal["none"] = "none"

    def inline_pin(self, spec: GateSpec) -> dict[str, Any]:
        return {}

    def pin_from(self, spec: GateSpec, observations: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        return {}


def base_request(spec: GateSpec, label: str = "baseline", **changes: Any) -> ProbeRequest:
    """The gate's own run (its probe, args and env pin), optionally with args/env overlaid."""
    if spec.probe is None:  # the suite loader guarantees a probe for kinds that need one
        raise GateError(f"gate '{spec.name}' has no probe", "config")
    args = {**spec.args, **changes.get("args", {})}
    env = {**spec.env, **changes.get("env", {})}
    return ProbeRequest(label=label, probe=spec.probe, args=args, env=env)


def lookup(observation: Mapping[str, Any], dotted: str) -> Any:
    """``metrics.anchor`` -> observation["metrics"]["anchor"], ``tokens.82`` -> a list position;
    returns _MISSING when absent."""
    value: Any = observation
    for part in dotted.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def is_missing(value: Any) -> bool:
    return value is _MISSING


def require(observation: Mapping[str, Any], dotted: str, spec: GateSpec, label: str = "") -> Any:
    value = lookup(observation, dotted)
    if value is _MISSING:
        run = f" (run {label})" if label and label != "baseline" else ""
        raise GateError(
            f"gate '{spec.name}': the probe's observation{run} has no '{dotted}'; "
            f"this kind needs it (fields present: {', '.join(sorted(observation)) or 'none'})",
            "probe",
        )
    return value


def stream_digest(tokens: Sequence[int]) -> str:
    """sha256 of the little-endian int32 token ids (docs/contracts.md section 5)."""
    return hashlib.sha256(struct.pack(f"<{len(tokens)}i", *tokens)).hexdigest()


def first_divergence(old: Sequence[Any], new: Sequence[Any]) -> int | None:
    for position, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            return position
    if len(old) != len(new):
        return min(len(old), len(new))
    return None


def short(value: Any) -> str:
    """Digests shortened to 12 hex chars; floats without noise."""
    if isinstance(value, str) and len(value) > 16 and all(c in "0123456789abcdef" for c in value):
        return value[:12] + "…"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def as_cases(value: Any) -> dict[str, Any] | None:
    """A per-case view of an observation field: dicts as they are, lists as pos-N."""
    if isinstance(value, Mapping):
        return {str(k): v for k, v in value.items()}
    if isinstance(value, list):
        return {f"pos-{i}": v for i, v in enumerate(value)}
    return None


def str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def env_values(value: Any) -> bool:
    """``{KNOB = ["0", "1"]}``: each knob maps to a non-empty list of strings."""
    return (
        isinstance(value, Mapping)
        and bool(value)
        and all(isinstance(v, list) and v and all(isinstance(x, str) for x in v) for v in value.values())
    )
