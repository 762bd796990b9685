"""``bitident``: two configurations of the same probe (different env and/or args: two arms, or a
vectorized kernel and its scalar reference body) must give bit-identical outputs, case by case
("172/172"). Configurations: ``configs = { dispatch = { args = {impl = "dispatch"} },
scalar = { args = {impl = "scalar"} } }``; the compared field is ``field`` (default ``cases``; a list
field such as ``tokens`` is compared per position)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vtgate.errors import GateError
from vtgate.kinds._common import PinlessKind, as_cases, base_request, is_missing, lookup, short
from vtgate.suite.records import Cases, GateSpec, ProbeRef, ProbeRequest, Verdict

CONFIG_KEYS = {"args", "env"}


class BitidentKind(PinlessKind):
    name = "bitident"
    option_keys = frozenset({"configs", "field"})
    default_probe: ProbeRef | None = None

    def validate(self, options: Mapping[str, Any]) -> list[str]:
        configs = options.get("configs")
        if not isinstance(configs, Mapping) or len(configs) != 2:
            return ["bitident gates need exactly two configs = { a = { env = {...} }, b = { args = {...} } }"]
        problems = []
        for label, config in configs.items():
            if not isinstance(config, Mapping):
                problems.append(f"configs.{label} must be a table with args and/or env")
                continue
            unknown = set(config) - CONFIG_KEYS
            if unknown:
                problems.append(f"configs.{label}: unknown key {sorted(unknown)[0]!r} (known: args, env)")
            if not isinstance(config.get("args", {}), Mapping):
                problems.append(f"configs.{label}.args must be a table")
            env = config.get("env", {})
            if not isinstance(env, Mapping) or not all(isinstance(v, str) for v in env.values()):
                problems.append(f"configs.{label}.env must map knob names to strings")
        if "field" in options and not isinstance(options["field"], str):
            problems.append("field must be a string (an observation field such as 'cases' or 'tokens')")
        return problems

    def requests(self, spec: GateSpec) -> list[ProbeRequest]:
        return [
            base_request(spec, label, args=dict(config.get("args", {})), env=dict(config.get("env", {})))
            for label, config in spec.options["configs"].items()
        ]

    def evaluate(
        self, spec: GateSpec, pin: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]
    ) -> Verdict:
        field = spec.options.get("field", "cases")
        (left_label, right_label) = list(spec.options["configs"])
        sides = []
        for label in (left_label, right_label):
            value = lookup(observations[label], field)
            cases = None if is_missing(value) else as_cases(value)
            if cases is None:
                raise GateError(f"gate '{spec.name}': run '{label}' has no per-case field '{field}'", "probe")
            sides.append(cases)
        left, right = sides
        ids = sorted(set(left) | set(right), key=_natural)
        if not ids:
            raise GateError(f"gate '{spec.name}': no cases to compare (both runs gave an empty '{field}')", "probe")
        failed = [i for i in ids if i not in left or i not in right or left[i] != right[i]]
        passed_n = len(ids) - len(failed)
        versus = f"({left_label} vs {right_label})"
        if not failed:
            summary = f"{passed_n}/{len(ids)} identical {versus}"
        else:
            first = failed[0]
            detail = (f"{short(left.get(first, 'missing'))} vs {short(right.get(first, 'missing'))}")
            summary = (f"{passed_n}/{len(ids)} identical {versus} — {len(failed)} differ, first {first}: {detail}")
        measured = {right_label: {i: right.get(i) for i in failed[:20]}}
        pinned = {left_label: {i: left.get(i) for i in failed[:20]}}
        return Verdict(not failed, summary, measured, pinned, Cases(passed_n, len(failed), tuple(failed)))

    def describe_change(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
        return "bit-identity gates compare two runs; nothing is pinned"

    def describe_pin(self, pin: Mapping[str, Any]) -> str:
        return "two runs compared with each other"


def _natural(case_id: str) -> tuple[Any, ...]:
    """pos-2 before pos-10."""
    import re

    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", case_id))


KIND = BitidentKind()
