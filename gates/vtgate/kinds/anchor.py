"""``anchor``: a deterministic decode stream pinned by its digest (``digests.stream``), its anchor
fingerprint (``metrics.anchor``, when the probe gives one), the tokens at chosen ``positions`` and,
with ``digests = ["logits", ...]``, the observation's other digests: a stream that another numeric
drift happens to reproduce token for token still moves the logits' bits, so the pin names the arm.
A probe with no token stream (kernel outputs, a quantizer's codes) is pinned by its digests alone:
a gate that names ``digests`` and no ``positions`` over an observation without ``tokens``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vtgate.errors import GateError
from vtgate.kinds._common import (
    base_request,
    first_divergence,
    is_missing,
    lookup,
    require,
    short,
    stream_digest,
)
from vtgate.suite.records import Cases, GateSpec, ProbeRef, ProbeRequest, Verdict


def _stream(observation: Mapping[str, Any], spec: GateSpec) -> tuple[list[int], str, Any]:
    tokens = list(require(observation, "tokens", spec))
    digest = lookup(observation, "digests.stream")
    if is_missing(digest):
        digest = stream_digest(tokens)
    anchor = lookup(observation, "metrics.anchor")
    return tokens, str(digest), None if is_missing(anchor) else anchor


def _digest(observation: Mapping[str, Any], name: str, spec: GateSpec) -> str:
    value = lookup(observation, f"digests.{name}")
    if is_missing(value):
        raise GateError(f"gate '{spec.name}': the probe reports no digests.{name} (digests = [...] in the suite "
                        f"names digests the probe must return)", "probe")
    return str(value)


def _digests_only(spec: GateSpec, observation: Mapping[str, Any]) -> bool:
    """A digest anchor: the gate names digests and no positions, and the probe reports no tokens."""
    return bool(spec.options.get("digests")) and not spec.options.get("positions") and is_missing(
        lookup(observation, "tokens"))


class AnchorKind:
    name = "anchor"
    pin_source = "golden"
    option_keys = frozenset({"positions", "digests"})
    default_probe: ProbeRef | None = None

    def validate(self, options: Mapping[str, Any]) -> list[str]:
        positions = options.get("positions", [])
        if not isinstance(positions, list) or not all(isinstance(p, int) and p >= 0 for p in positions):
            return ["positions must be a list of token positions (integers >= 0)"]
        digests = options.get("digests", [])
        if not isinstance(digests, list) or not all(isinstance(d, str) and d for d in digests):
            return ['digests must be a list of digest names the probe reports, e.g. digests = ["logits"]']
        return []

    def requests(self, spec: GateSpec) -> list[ProbeRequest]:
        return [base_request(spec)]

    def inline_pin(self, spec: GateSpec) -> dict[str, Any]:
        return {}

    def _check_positions(self, spec: GateSpec, length: int) -> None:
        beyond = [p for p in spec.options.get("positions", []) if p >= length]
        if beyond:
            raise GateError(
                f"{spec.where}: gate '{spec.name}': anchor position {beyond[0]} is beyond the stream "
                f"({length} tokens, positions 0..{length - 1}); fix 'positions' or generate more tokens",
                "config",
            )

    def pin_from(self, spec: GateSpec, observations: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        if _digests_only(spec, observations["baseline"]):
            return {"digests": {name: _digest(observations["baseline"], name, spec) for name in spec.options["digests"]}}
        tokens, digest, anchor = _stream(observations["baseline"], spec)
        self._check_positions(spec, len(tokens))
        pin: dict[str, Any] = {"digest": digest, "length": len(tokens), "tokens": tokens}
        if anchor is not None:
            pin["anchor"] = anchor
        pin["anchors"] = {str(p): tokens[p] for p in spec.options.get("positions", [])}
        if spec.options.get("digests"):
            pin["digests"] = {name: _digest(observations["baseline"], name, spec) for name in spec.options["digests"]}
        return pin

    def evaluate(
        self, spec: GateSpec, pin: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]
    ) -> Verdict:
        if "digest" not in pin and pin.get("digests") and _digests_only(spec, observations["baseline"]):
            return self._evaluate_digests(spec, pin, observations["baseline"])
        tokens, digest, anchor = _stream(observations["baseline"], spec)
        if "digest" not in pin:
            raise GateError(f"gate '{spec.name}': the golden has no stream 'digest'", "golden")
        length = int(pin.get("length", len(pin.get("tokens", []))))
        self._check_positions(spec, length)
        pinned_anchors: Mapping[str, int] = pin.get("anchors", {})
        positions = spec.options.get("positions", [])
        missing = [p for p in positions if str(p) not in pinned_anchors]
        if missing:
            raise GateError(
                f"gate '{spec.name}': anchor position {missing[0]} is in the suite but not in the golden; "
                f"re-bless: vtgate bless {spec.name} --reason ...",
                "golden",
            )
        held: list[int] = []
        moved: list[int] = []
        for p in positions:
            now = tokens[p] if p < len(tokens) else None
            (held if now == pinned_anchors[str(p)] else moved).append(p)
        digest_ok = digest == pin["digest"]
        anchor_ok = "anchor" not in pin or anchor == pin["anchor"]
        wanted = list(spec.options.get("digests", []))
        pinned_digests: Mapping[str, str] = pin.get("digests", {})
        if any(name not in pinned_digests for name in wanted):
            raise GateError(f"gate '{spec.name}': digests {wanted} are in the suite but not all in the golden; "
                            f"re-bless: vtgate bless {spec.name} --reason ...", "golden")
        now_digests = {name: _digest(observations["baseline"], name, spec) for name in wanted}
        digests_moved = [name for name in wanted if now_digests[name] != pinned_digests[name]]
        passed = digest_ok and anchor_ok and not moved and not digests_moved
        failed_ids = ([] if digest_ok else ["stream"]) + [f"pos-{p}" for p in moved] + [f"digests.{n}" for n in digests_moved]
        cases = Cases(len(held) + int(digest_ok) + len(wanted) - len(digests_moved), len(failed_ids), tuple(failed_ids))
        measured = {"digest": digest, "anchor": anchor, "length": len(tokens),
                    "anchors": {str(p): (tokens[p] if p < len(tokens) else None) for p in positions}}
        if wanted:
            measured["digests"] = now_digests
        pinned = {k: pin[k] for k in ("digest", "anchor", "length", "anchors", "digests") if k in pin}
        if passed:
            name = f"anchor {pin['anchor']}, " if "anchor" in pin else ""
            also = "".join(f"; {n} {short(now_digests[n])} identical" for n in wanted)
            summary = (f"{name}stream {len(tokens)} tokens {short(digest)} identical{also}; "
                       f"{len(held)}/{len(positions)} anchor tokens hold")
            return Verdict(True, summary, measured, pinned, cases)
        # a red stream carries both streams (and margins where they exist): its first divergent step,
        # shown by vtgate report; green ones stay small
        measured["tokens"] = list(tokens)
        if isinstance(observations["baseline"].get("margins"), list):
            measured["margins"] = list(observations["baseline"]["margins"])
        for key in ("tokens", "margins"):
            if isinstance(pin.get(key), list):
                pinned[key] = list(pin[key])
        parts = []
        if "anchor" in pin and not anchor_ok:
            parts.append(f"anchor {pin['anchor']} -> {anchor}")
        if not digest_ok:
            where = ""
            old_tokens = pin.get("tokens")
            if isinstance(old_tokens, list):
                first = first_divergence(old_tokens, tokens)
                if first is not None and first < len(old_tokens) and first < len(tokens):
                    where = f", first divergence at position {first}: token {old_tokens[first]} -> {tokens[first]}"
                elif first is not None:
                    where = f", length {len(old_tokens)} -> {len(tokens)}"
            parts.append(f"stream digest {short(pin['digest'])} -> {short(digest)}{where}")
        for p in moved:
            now = tokens[p] if p < len(tokens) else "nothing (stream ended)"
            parts.append(f"anchor token at position {p}: {pinned_anchors[str(p)]} -> {now}")
        for name in digests_moved:
            parts.append(f"{name} digest {short(pinned_digests[name])} -> {short(now_digests[name])}")
        summary = "; ".join(parts) + f" ({len(held)}/{len(positions)} anchor tokens hold)"
        return Verdict(False, summary, measured, pinned, cases)

    def _evaluate_digests(self, spec: GateSpec, pin: Mapping[str, Any], observation: Mapping[str, Any]) -> Verdict:
        """A digest anchor's verdict: each named digest against the golden's, by name."""
        wanted = list(spec.options["digests"])
        pinned: Mapping[str, str] = pin["digests"]
        if any(name not in pinned for name in wanted):
            raise GateError(f"gate '{spec.name}': digests {wanted} are in the suite but not all in the golden; "
                            f"re-bless: vtgate bless {spec.name} --reason ...", "golden")
        now = {name: _digest(observation, name, spec) for name in wanted}
        moved = [name for name in wanted if now[name] != pinned[name]]
        cases = Cases(len(wanted) - len(moved), len(moved), tuple(f"digests.{n}" for n in moved))
        measured, shown = {"digests": now}, {"digests": {n: pinned[n] for n in wanted}}
        if not moved:
            summary = "; ".join(f"{n} {short(now[n])} identical" for n in wanted)
            return Verdict(True, summary, measured, shown, cases)
        summary = "; ".join(f"{n} digest {short(pinned[n])} -> {short(now[n])}" for n in moved)
        summary += f" ({len(wanted) - len(moved)}/{len(wanted)} digests hold)"
        return Verdict(False, summary, measured, shown, cases)

    def describe_change(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
        parts = []
        if old.get("anchor") != new.get("anchor"):
            parts.append(f"anchor {old.get('anchor')} -> {new.get('anchor')}")
        if old.get("digest") != new.get("digest"):
            parts.append(f"stream {short(old.get('digest'))} -> {short(new.get('digest'))}")
        old_digests, new_digests = old.get("digests", {}), new.get("digests", {})
        for name in sorted(set(old_digests) | set(new_digests)):
            if old_digests.get(name) != new_digests.get(name):
                parts.append(f"{name} {short(old_digests.get(name))} -> {short(new_digests.get(name))}")
        old_anchors, new_anchors = old.get("anchors", {}), new.get("anchors", {})
        for p in sorted(set(old_anchors) | set(new_anchors), key=int):
            if old_anchors.get(p) != new_anchors.get(p):
                parts.append(f"token at position {p}: {old_anchors.get(p, '-')} -> {new_anchors.get(p, '-')}")
        if parts:
            return "; ".join(parts)
        return f"unchanged (anchor {new.get('anchor')})" if "anchor" in new else "unchanged"

    def describe_pin(self, pin: Mapping[str, Any]) -> str:
        if "digest" not in pin:
            return "digests " + ", ".join(f"{n} {short(v)}" for n, v in dict(pin.get("digests", {})).items())
        anchor = f"anchor {pin['anchor']}, " if "anchor" in pin else ""
        return f"{anchor}{pin.get('length')} tokens {short(pin.get('digest'))}"


KIND = AnchorKind()
