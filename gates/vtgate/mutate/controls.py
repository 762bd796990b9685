"""Pin perturbations, pure: a ``PinChange`` edits one gate's pin and/or its baseline observations, and
the gate is re-judged by its kind (``evaluate_gate``) with no probe run. Declared ``pin`` mutations
compile to a PinChange against the baseline; the built-in negative controls are generated here, one
family per kind, each with the outcome the gate's own declared tolerance implies:

- golden: one token swapped at the lowest- and at the highest-margin position (teacher-forced:
  red unless that flip class is tolerated; then also one flip past the tolerance); floor: the floor's
  edge (``total - min_exact`` swaps green, one more red); logits: a step's digest altered (exact) or
  a reference value moved past the tolerance (red) and to half of it (green), and a token swapped;
- anchor: the stream digest, the anchor number, each anchor token and each pinned digest perturbed (red);
- band: the measured value at each edge (green) and just outside it (red);
- bitident / invariance: one case of one run altered (red);
- counters: each pinned counter of each run moved by one (red);
- snapshot: the first and the last pinned call's outcome altered, and one call of the run's corpus
  that the golden does not hold (red)."""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vtgate.kinds._common import as_cases, is_missing, lookup, short
from vtgate.kinds.band import read_metric
from vtgate.mutate.spec import Mutation, Outcome, PinOp
from vtgate.suite.records import GateSpec

Path_ = tuple[str | int, ...]


class PinOpError(Exception):
    """A declared pin mutation does not fit the baseline (position beyond the golden, no such field)."""


@dataclass(frozen=True)
class Edit:
    """Set ``path`` in the pin (``label`` None) or in the observation of run ``label`` to ``value``."""

    path: Path_
    value: Any
    label: str | None = None


@dataclass(frozen=True)
class PinChange:
    gate: str
    edits: tuple[Edit, ...]
    summary: str


def _set(container: Any, path: Path_, value: Any) -> None:
    for step in path[:-1]:
        container = container[step]
    last = path[-1]
    if isinstance(container, list):
        container[int(last)] = value
    else:
        container[last] = value


def _get(container: Any, path: Path_) -> Any:
    for step in path:
        in_list = isinstance(container, list) and isinstance(step, int) and 0 <= step < len(container)
        if not (in_list or isinstance(container, Mapping) and step in container):
            raise KeyError(".".join(str(p) for p in path))
        container = container[step]
    return container


def apply_change(change: PinChange, pin: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]
                 ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Copies of pin and observations with the change's edits made (the inputs are left alone)."""
    new_pin = copy.deepcopy(dict(pin))
    new_obs = {label: copy.deepcopy(dict(obs)) for label, obs in observations.items()}
    for edit in change.edits:
        target = new_pin if edit.label is None else new_obs[edit.label]
        _set(target, edit.path, edit.value)
    return new_pin, new_obs


def parse_path(container: Any, dotted: str) -> Path_:
    """"anchors.5" -> ("anchors", "5"); "tokens.17" -> ("tokens", 17) where the container is a list."""
    path: list[str | int] = []
    node = container
    for part in dotted.split("."):
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise PinOpError(f"'{dotted}': {part} is not a position of a list of {len(node)}")
            path.append(int(part))
            node = node[int(part)]
        elif isinstance(node, Mapping):
            if part not in node:
                raise PinOpError(f"'{dotted}': no '{part}' (present: {', '.join(map(str, node)) or 'none'})")
            path.append(part)
            node = node[part]
        else:
            raise PinOpError(f"'{dotted}': cannot descend into {type(node).__name__} at '{part}'")
    return tuple(path)


def other_token(token: Any) -> Any:
    return token + 1 if isinstance(token, int) else f"{token}~"


def altered(value: Any) -> Any:
    """A value that differs from ``value`` and looks like it: a digest with its last hex digit changed,
    a number plus one, a list with its first item altered."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + max(abs(value) * 1e-6, 1e-6)
    if isinstance(value, str):
        if value and value[-1] in "0123456789abcdef":
            return value[:-1] + ("0" if value[-1] != "0" else "1")
        return value + "~"
    if isinstance(value, list) and value:
        return [altered(value[0]), *value[1:]]
    if isinstance(value, Mapping) and value:
        first = next(iter(value))
        return {**value, first: altered(value[first])}
    return "altered"


# -- declared pin mutations -----------------------------------------------------------------------------


def compile_pin_op(op: PinOp, spec: GateSpec, pin: Mapping[str, Any],
                   observations: Mapping[str, Mapping[str, Any]]) -> PinChange:
    params = op.params
    if op.op == "swap-token":
        tokens = pin.get("tokens")
        position = int(params["position"])
        if not isinstance(tokens, list) or position >= len(tokens):
            length = len(tokens) if isinstance(tokens, list) else 0
            raise PinOpError(f"position {position} is beyond the golden ({length} tokens)")
        to = params.get("to", other_token(tokens[position]))
        return PinChange(op.gate, (Edit(("tokens", position), to),),
                         f"golden token at position {position}: {tokens[position]} -> {to}")
    if op.op == "set":
        edits, parts = [], []
        for dotted, value in params["values"].items():
            path = parse_path(pin, str(dotted))
            edits.append(Edit(path, value))
            parts.append(f"{dotted} {short(_get(pin, path))} -> {short(value)}")
        return PinChange(op.gate, tuple(edits), "pin " + "; ".join(parts))
    if op.op == "shift-band":
        metric, by, edge = str(params["metric"]), params["by"], params.get("edge", "both")
        lo, hi = pin[metric]
        new = [lo + by if edge in ("lo", "both") else lo, hi + by if edge in ("hi", "both") else hi]
        return PinChange(op.gate, (Edit((metric,), new),), f"band {metric} [{lo}, {hi}] -> [{new[0]}, {new[1]}]")
    # shift-measured
    label = str(params.get("label", "baseline"))
    if label not in observations:
        raise PinOpError(f"no run '{label}' (runs: {', '.join(observations)})")
    path = _measured_path(spec, observations[label], str(params["field"]))
    before = _get(observations[label], path)
    if not isinstance(before, (int, float)) or isinstance(before, bool):
        raise PinOpError(f"measured '{params['field']}' is {before!r}, not a number")
    after = before + params["by"]
    return PinChange(op.gate, (Edit(path, after, label),), f"measured {params['field']} {before} -> {after}")


def _measured_path(spec: GateSpec, observation: Mapping[str, Any], name: str) -> Path_:
    """Where a band (or any gate) reads ``name``: dotted as written, or a bare band metric name looked
    up in metrics then counters, exactly like the band kind reads it."""
    if "." not in name and spec.kind == "band":
        for section in ("metrics", "counters"):
            if not is_missing(lookup(observation, f"{section}.{name}")):
                return (section, name)
    if is_missing(read_metric(observation, name) if spec.kind == "band" else lookup(observation, name)):
        raise PinOpError(f"the observation has no '{name}'")
    return parse_path(observation, name)


# -- built-in negative controls ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Control:
    """A generated control: the change and the outcome the gate's declared tolerance implies."""

    name: str
    change: PinChange
    expected: Outcome

    def as_mutation(self) -> Mutation:
        return Mutation(name=self.name, kind="auto", expected={self.change.gate: self.expected},
                        description=self.change.summary, origin="control")


def controls_for(spec: GateSpec, pin: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]) -> list[Control]:
    """The negative (and tolerance-edge) controls of one gate, from its baseline pin and observations."""
    makers = {"golden": _golden, "anchor": _anchor, "band": _band, "bitident": _cases_runs,
              "invariance": _cases_runs, "counters": _counters, "snapshot": _snapshot}
    maker = makers.get(spec.kind)
    return maker(spec, pin, observations) if maker else []


def _swap(spec: GateSpec, pin: Mapping[str, Any], positions: Sequence[int], what: str) -> PinChange:
    tokens = pin["tokens"]
    edits = tuple(Edit(("tokens", p), other_token(tokens[p])) for p in positions)
    shown = ", ".join(str(p) for p in positions[:6]) + (" …" if len(positions) > 6 else "")
    return PinChange(spec.name, edits, f"{what}: golden token swapped at position{'s' if len(positions) > 1 else ''} {shown}")


def _logits(spec: GateSpec, pin: Mapping[str, Any]) -> list[Control]:
    """A logits golden: exact, the last step's digest altered (red); with a tolerance, the golden's
    top-1 value at the last step moved just past the tolerance (red) and to half of it (green)."""
    name = spec.name
    steps = pin.get("steps")
    if not isinstance(steps, list) or not steps:
        return []
    last = len(steps) - 1
    options = spec.options
    if "atol" not in options and "rtol" not in options:
        change = PinChange(name, (Edit(("steps", last), altered(steps[last])),), f"the golden's logits digest of step {last} altered")
        return [Control(f"{name}:step-digest", change, "red")]
    values = pin.get("logits", {}).get("values") if isinstance(pin.get("logits"), Mapping) else None
    if not isinstance(values, list) or len(values) <= last or not values[last]:
        return []
    reference = float(values[last][0])
    tolerance = float(options.get("atol", 0.0)) + float(options.get("rtol", 0.0)) * abs(reference)
    outside = reference + 2 * tolerance + 1e-6 * max(1.0, abs(reference))
    controls = [Control(f"{name}:beyond-tolerance", PinChange(
        name, (Edit(("logits", "values", last, 0), outside),),
        f"the golden's top-1 logit at step {last} moved {short(outside - reference)} (tolerance {short(tolerance)})"), "red")]
    if tolerance > 0:
        inside = reference + tolerance / 2
        controls.append(Control(f"{name}:within-tolerance", PinChange(
            name, (Edit(("logits", "values", last, 0), inside),),
            f"the golden's top-1 logit at step {last} moved {short(inside - reference)}, half the tolerance"), "green"))
    return controls


def _golden(spec: GateSpec, pin: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]) -> list[Control]:
    if spec.options.get("mode") == "logits":
        logits_controls = _logits(spec, pin)
        tokens = pin.get("tokens")
        if isinstance(tokens, list) and tokens:  # a logits golden compares tokens too
            logits_controls.append(Control(f"{spec.name}:swap-token", _swap(spec, pin, [0], "first step"), "red"))
        return logits_controls
    tokens = pin.get("tokens")
    if not isinstance(tokens, list) or not tokens:
        return []
    margins = pin.get("margins")
    margins = margins if isinstance(margins, list) and len(margins) >= len(tokens) else None
    order = sorted(range(len(tokens)), key=lambda i: (margins[i], i)) if margins else list(range(len(tokens)))
    low, high = order[0], order[-1]
    mode = spec.options.get("mode", "strict")
    name = spec.name
    controls: list[Control] = []
    if mode == "strict":
        controls.append(Control(f"{name}:swap-low-margin", _swap(spec, pin, [low], "low margin"), "red"))
        if high != low:
            controls.append(Control(f"{name}:swap-high-margin", _swap(spec, pin, [high], "high margin"), "red"))
    elif mode == "floor":
        slack = len(tokens) - int(spec.options["min_exact"])
        if slack < 0:
            return controls
        controls.append(Control(f"{name}:floor-edge", _swap(spec, pin, order[:slack], f"{slack} swaps at the floor"), "green")
                        if slack > 0 else Control(f"{name}:swap-low-margin", _swap(spec, pin, [low], "low margin"), "red"))
        if slack + 1 <= len(tokens):
            controls.append(Control(f"{name}:floor-edge+1", _swap(spec, pin, order[: slack + 1], f"{slack + 1} swaps, one past the floor"), "red"))
    else:  # teacher-forced
        eps = float(spec.options["near_tie_eps"])
        max_near = int(spec.options.get("max_near_tie_flips", 0))
        max_hard = int(spec.options.get("max_hard_flips", 0))
        if margins is None:
            return controls
        near = [i for i in order if margins[i] < eps]
        hard = [i for i in reversed(order) if margins[i] >= eps]
        if near:
            controls.append(Control(f"{name}:swap-low-margin", _swap(spec, pin, near[:1], f"low margin {margins[near[0]]:.3g} (near tie)"),
                                    "red" if max_near == 0 else "green"))
            if 0 < max_near < len(near):
                controls.append(Control(f"{name}:near-tie-limit+1", _swap(spec, pin, near[: max_near + 1], f"{max_near + 1} near-tie flips"), "red"))
        if hard:
            controls.append(Control(f"{name}:swap-high-margin", _swap(spec, pin, hard[:1], f"high margin {margins[hard[0]]:.3g} (hard flip)"),
                                    "red" if max_hard == 0 else "green"))
            if 0 < max_hard < len(hard):
                controls.append(Control(f"{name}:hard-limit+1", _swap(spec, pin, hard[: max_hard + 1], f"{max_hard + 1} hard flips"), "red"))
    return controls


def _anchor(spec: GateSpec, pin: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]) -> list[Control]:
    controls: list[Control] = []
    if "digest" in pin:
        change = PinChange(spec.name, (Edit(("digest",), altered(pin["digest"])),), "stream digest perturbed")
        controls.append(Control(f"{spec.name}:digest", change, "red"))
    if "anchor" in pin:
        change = PinChange(spec.name, (Edit(("anchor",), altered(pin["anchor"])),),
                           f"anchor {pin['anchor']} -> {altered(pin['anchor'])}")
        controls.append(Control(f"{spec.name}:anchor", change, "red"))
    for position, token in dict(pin.get("anchors", {})).items():
        change = PinChange(spec.name, (Edit(("anchors", position), other_token(token)),),
                           f"anchor token at position {position}: {token} -> {other_token(token)}")
        controls.append(Control(f"{spec.name}:anchor-token-{position}", change, "red"))
    for name, value in dict(pin.get("digests", {})).items():
        change = PinChange(spec.name, (Edit(("digests", name), altered(value)),), f"{name} digest perturbed")
        controls.append(Control(f"{spec.name}:digests-{name}", change, "red"))
    return controls


def _just_outside(edge: Any, direction: int, integral: bool) -> Any:
    if integral:
        return edge + direction
    return math.nextafter(float(edge), math.inf if direction > 0 else -math.inf)


def _band(spec: GateSpec, pin: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]) -> list[Control]:
    observation = observations.get("baseline", {})
    controls: list[Control] = []
    for metric, (lo, hi) in pin.items():
        try:
            path = _measured_path(spec, observation, metric)
        except PinOpError:
            continue
        measured = _get(observation, path)
        integral = all(isinstance(v, int) and not isinstance(v, bool) for v in (measured, lo, hi))
        points = (("lo", lo, "green"), ("below-lo", _just_outside(lo, -1, integral), "red"),
                  ("hi", hi, "green"), ("above-hi", _just_outside(hi, +1, integral), "red"))
        for tag, value, outcome in points:
            change = PinChange(spec.name, (Edit(path, value, "baseline"),),
                               f"measured {metric} {measured} -> {value} ({'at' if outcome == 'green' else 'just outside'} the {tag[-2:]} edge)")
            controls.append(Control(f"{spec.name}:{metric}:{tag}", change, outcome))  # type: ignore[arg-type]
    return controls


def _cases_runs(spec: GateSpec, pin: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]) -> list[Control]:
    """Alter one case of one run: bitident's second config, invariance's first non-baseline run."""
    if spec.kind == "bitident":
        labels = list(spec.options["configs"])
        label, fields = labels[-1], [spec.options.get("field", "cases")]
    else:
        labels = [label for label in observations if label != "baseline"]
        if not labels:
            return []
        label = labels[0]
        fields = list(spec.options.get("compare", [])) or [
            f for f in ("tokens", "margins", "digests", "cases") if f in observations.get("baseline", {})]
    observation = observations.get(label)
    if observation is None:
        return []
    for dotted in fields:
        value = lookup(observation, dotted)
        if is_missing(value):
            continue
        path = parse_path(observation, dotted)
        cases = as_cases(value)
        if cases:
            first = next(iter(cases))
            key: str | int = int(first[4:]) if isinstance(value, list) else first
            inner = value[key] if isinstance(value, list) else value[first]  # type: ignore[index]
            change = PinChange(spec.name, (Edit((*path, key), altered(inner), label),),
                               f"run {label}: {dotted} case {first} altered")
        else:
            change = PinChange(spec.name, (Edit(path, altered(value), label),), f"run {label}: {dotted} altered")
        return [Control(f"{spec.name}:case-altered", change, "red")]
    return []


def _counters(spec: GateSpec, pin: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]) -> list[Control]:
    return [
        Control(f"{spec.name}:{label}/{counter}+1",
                PinChange(spec.name, (Edit((label, counter), altered(value)),), f"pinned {label}/{counter} {value} -> {altered(value)}"),
                "red")
        for label, counters in pin.items()
        for counter, value in dict(counters).items()
    ]


def _snapshot(spec: GateSpec, pin: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]) -> list[Control]:
    cases = list(dict(pin.get("cases", {})))
    if not cases:
        return []
    controls = [Control(f"{spec.name}:call-{which}", PinChange(
        spec.name, (Edit(("cases", case), altered(pin["cases"][case])),), f"the pinned outcome of {case} altered"), "red")
        for which, case in (("first", cases[0]), ("last", cases[-1]))]
    extra = "(a call the golden does not hold)"
    controls.append(Control(f"{spec.name}:call-not-pinned", PinChange(
        spec.name, (Edit(("cases", extra), "ok None", label="baseline"),), f"the run reports a call {extra}"), "red"))
    return controls
