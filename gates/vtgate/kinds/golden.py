"""``golden``: generated tokens against a golden token stream. Modes: ``strict`` (N/N exact),
``floor`` (at least ``min_exact`` positions exact) and ``teacher-forced`` (position by position, each
mismatch classed as a near-tie flip when the golden's top-1/top-2 margin there was below
``near_tie_eps``, else a hard flip; bounded by ``max_near_tie_flips`` / ``max_hard_flips``; the margins
at positions that held must match within ``margin_tolerance``, default 0) and
``logits`` (each step's logits pinned: exactly by digest, or within ``atol`` / ``rtol`` with top-k
agreement; ``vtgate.kinds._logits``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vtgate.errors import GateError
from vtgate.kinds import _logits
from vtgate.kinds._common import base_request, first_divergence, require
from vtgate.suite.records import Cases, GateSpec, ProbeRef, ProbeRequest, Verdict

MODES = ("strict", "floor", "teacher-forced", "logits")


class GoldenKind:
    name = "golden"
    pin_source = "golden"
    option_keys = frozenset({"mode", "min_exact", "near_tie_eps", "max_near_tie_flips", "max_hard_flips",
                             "margin_tolerance"}) | _logits.OPTION_KEYS
    default_probe: ProbeRef | None = None

    def validate(self, options: Mapping[str, Any]) -> list[str]:
        problems = []
        mode = options.get("mode", "strict")
        if mode not in MODES:
            problems.append(f"mode = {mode!r} is not one of {', '.join(MODES)}")
        if mode == "floor" and not isinstance(options.get("min_exact"), int):
            problems.append("mode = 'floor' needs min_exact = <int> (how many positions must stay exact)")
        if mode != "floor" and "min_exact" in options:
            problems.append("min_exact only applies to mode = 'floor'")
        if mode == "teacher-forced":
            eps = options.get("near_tie_eps")
            if not isinstance(eps, (int, float)) or isinstance(eps, bool) or eps < 0:
                problems.append("mode = 'teacher-forced' needs near_tie_eps = <number >= 0>")
        for key in ("max_near_tie_flips", "max_hard_flips"):
            if key in options:
                if mode != "teacher-forced":
                    problems.append(f"{key} only applies to mode = 'teacher-forced'")
                elif not isinstance(options[key], int) or options[key] < 0:
                    problems.append(f"{key} must be an integer >= 0")
        if "near_tie_eps" in options and mode != "teacher-forced":
            problems.append("near_tie_eps only applies to mode = 'teacher-forced'")
        if "margin_tolerance" in options:
            tolerance = options["margin_tolerance"]
            if mode != "teacher-forced":
                problems.append("margin_tolerance only applies to mode = 'teacher-forced'")
            elif not isinstance(tolerance, (int, float)) or isinstance(tolerance, bool) or tolerance < 0:
                problems.append("margin_tolerance must be a number >= 0 (0: the margins must be bit-identical)")
        if mode == "logits":
            problems += _logits.validate(options)
        else:
            problems += [f"{key} only applies to mode = 'logits'" for key in sorted(_logits.OPTION_KEYS & set(options))]
        return problems

    def requests(self, spec: GateSpec) -> list[ProbeRequest]:
        return [base_request(spec)]

    def inline_pin(self, spec: GateSpec) -> dict[str, Any]:
        return {}

    def pin_from(self, spec: GateSpec, observations: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        observation = observations["baseline"]
        if spec.options.get("mode") == "logits":
            return _logits.pin_from(spec, observation)
        pin: dict[str, Any] = {"tokens": list(require(observation, "tokens", spec))}
        margins = observation.get("margins")
        if isinstance(margins, list):
            pin["margins"] = list(margins)
        elif spec.options.get("mode") == "teacher-forced":
            raise GateError(
                f"gate '{spec.name}' is teacher-forced but the probe returns no 'margins'; "
                "near-tie accounting needs the golden's top-1/top-2 margins",
                "probe",
            )
        return pin

    def evaluate(
        self, spec: GateSpec, pin: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]
    ) -> Verdict:
        if spec.options.get("mode") == "logits":
            return _logits.evaluate(spec, pin, observations["baseline"])
        measured = list(require(observations["baseline"], "tokens", spec))
        golden = pin.get("tokens")
        if not isinstance(golden, list):
            raise GateError(f"gate '{spec.name}': the golden has no 'tokens' list", "golden")
        margins = pin.get("margins") or []
        mode = spec.options.get("mode", "strict")
        total = len(golden)
        flips = [i for i in range(total) if i >= len(measured) or measured[i] != golden[i]]
        exact = total - len(flips)
        cases = Cases(exact, len(flips), tuple(f"pos-{i}" for i in flips))
        shown = {"measured": {"tokens": measured}, "pinned": {"tokens": golden}}

        def flip_text(i: int) -> str:
            now = measured[i] if i < len(measured) else "nothing (stream ended)"
            margin = f", golden margin {margins[i]:.3g}" if i < len(margins) else ""
            return f"position {i}: token {golden[i]} -> {now}{margin}"

        extra = ""
        if len(measured) > total:
            extra = f"; stream is {len(measured)} tokens, golden {total}"

        if mode == "teacher-forced":
            eps = float(spec.options["near_tie_eps"])
            if flips and len(margins) < total:
                raise GateError(
                    f"gate '{spec.name}': the golden has no margins for near-tie accounting; "
                    f"re-bless it: vtgate bless {spec.name} --reason ...",
                    "golden",
                )
            near = [i for i in flips if i < len(measured) and margins[i] < eps]
            hard = [i for i in flips if i not in near]
            max_near = int(spec.options.get("max_near_tie_flips", 0))
            max_hard = int(spec.options.get("max_hard_flips", 0))
            passed = len(near) <= max_near and len(hard) <= max_hard and len(measured) == total
            first_hard = flip_text(hard[0]) if hard else "none"
            if near:
                worst = min(near, key=lambda i: margins[i])
                worst_text = f"worst near-tie margin {margins[worst]:.3g} at position {worst}"
            else:
                worst_text = "no near-tie flips"
            limits = ""
            if not passed:
                limits = f" [allowed: {max_near} near-tie, {max_hard} hard]"
            margin_text, margins_hold = _margin_drift(spec, margins, observations["baseline"].get("margins"),
                                                      set(flips))
            passed = passed and margins_hold
            if not passed:
                _with_margins(shown, observations["baseline"], pin)
            summary = (
                f"{exact}/{total} ({len(near)} near-tie, {len(hard)} hard) — first hard flip {first_hard}; "
                f"{worst_text}{limits}{margin_text}{extra}"
            )
            return Verdict(passed, summary, shown["measured"], shown["pinned"], cases)

        first = first_divergence(golden, measured)
        if mode == "floor":
            floor = int(spec.options["min_exact"])
            passed = exact >= floor
            head = f"{exact}/{total} exact (floor {floor})"
        else:
            passed = first is None
            head = f"{exact}/{total} exact"
        if not passed:
            _with_margins(shown, observations["baseline"], pin)
        if first is None:
            tail = ""
        elif first >= total:
            tail = f" — stream runs past the golden ({len(measured)} tokens, golden {total})"
        else:
            tail = f" — first divergence at {flip_text(first)}"
        return Verdict(passed, head + tail + (extra if first is not None and first < total else ""),
                       shown["measured"], shown["pinned"], cases)

    def describe_change(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
        if "steps" in new:
            return _logits.describe_change(old, new)
        before, after = list(old.get("tokens", [])), list(new.get("tokens", []))
        changed = [i for i in range(max(len(before), len(after)))
                   if i >= len(before) or i >= len(after) or before[i] != after[i]]
        if not changed:
            return f"tokens unchanged ({len(after)} tokens)"
        parts = []
        for i in changed[:5]:
            a = before[i] if i < len(before) else "-"
            b = after[i] if i < len(after) else "-"
            parts.append(f"token {a} at position {i} -> {b}")
        more = f" (+{len(changed) - 5} more)" if len(changed) > 5 else ""
        length = f"; length {len(before)} -> {len(after)}" if len(before) != len(after) else ""
        return f"{len(changed)} of {len(after)} tokens change: " + ", ".join(parts) + more + length

    def describe_pin(self, pin: Mapping[str, Any]) -> str:
        if "steps" in pin:
            return _logits.describe_pin(pin)
        tokens = list(pin.get("tokens", []))
        head = " ".join(str(t) for t in tokens[:6])
        return f"{len(tokens)} tokens [{head}{' …' if len(tokens) > 6 else ''}]"


def _with_margins(shown: dict[str, dict[str, Any]], observation: Mapping[str, Any], pin: Mapping[str, Any]) -> None:
    """A red gate's report carries both margin lists (where the probe and the golden have them), so
    its first divergent step can be shown with the top-1/top-2 margins on both sides (vtgate report)."""
    if isinstance(observation.get("margins"), list):
        shown["measured"]["margins"] = list(observation["margins"])
    if isinstance(pin.get("margins"), list):
        shown["pinned"]["margins"] = list(pin["margins"])


def _margin_drift(spec: GateSpec, golden: list[Any], measured: Any, flipped: set[int]) -> tuple[str, bool]:
    """Teacher-forced goldens store margins, so they are compared too: at every position whose token
    held, the measured top-1/top-2 margin must equal the golden's within ``margin_tolerance`` (default
    0: bit-identical, as a bit-exact tier is). A scoring bug that moves margins but no token is red."""
    if not golden or not isinstance(measured, list):
        return "", True
    tolerance = float(spec.options.get("margin_tolerance", 0.0))
    moved = [i for i in range(min(len(golden), len(measured)))
             if i not in flipped and abs(float(measured[i]) - float(golden[i])) > tolerance]
    if not moved:
        return "", True
    first = moved[0]
    worst = max(moved, key=lambda i: abs(float(measured[i]) - float(golden[i])))
    return (f"; margins moved at {len(moved)} position(s), first {first}: {golden[first]!r} -> {measured[first]!r}, "
            f"largest |change| {abs(float(measured[worst]) - float(golden[worst])):.3g} at {worst} "
            f"(tolerance {tolerance:g})"), False


KIND = GoldenKind()
