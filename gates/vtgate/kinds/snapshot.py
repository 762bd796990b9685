"""``snapshot``: every call of a probe's corpus has the outcome its golden pins, case by case.

The probe explores an input space from a seed (pairwise rows of shapes, knobs, arguments at their
edges) and reports ``cases``: case id -> a short text of what the call returned or raised. No spec is
written for any of it: the golden *is* the spec, the behaviour as last blessed, so any change a caller
could observe on the corpus turns the gate red and is named call by call ("engine/03 generate ...:
ok list[4](...) -> raises IndexError"). A deliberate change is re-blessed with a reason; the bless
diff counts the calls that changed. A case the golden has and the run lacks (or the other way) is red
too: the corpus itself is pinned, so a probe that silently draws fewer calls cannot pass.

``show = N`` (default 5) is how many changed calls the summary spells out; the verdict's ``measured``
and ``pinned`` carry every changed call's two outcomes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vtgate.errors import GateError
from vtgate.kinds._common import base_request, require
from vtgate.suite.records import Cases, GateSpec, ProbeRef, ProbeRequest, Verdict

DEFAULT_SHOWN = 5


def _cases(spec: GateSpec, observation: Mapping[str, Any]) -> dict[str, str]:
    cases = require(observation, "cases", spec)
    if not isinstance(cases, Mapping) or not cases:
        raise GateError(f"gate '{spec.name}': a snapshot probe must report 'cases' as a non-empty map of case id "
                        "to outcome text", "probe")
    return {str(k): str(v) for k, v in cases.items()}


class SnapshotKind:
    name = "snapshot"
    pin_source = "golden"
    option_keys = frozenset({"show"})
    default_probe: ProbeRef | None = None

    def validate(self, options: Mapping[str, Any]) -> list[str]:
        show = options.get("show", DEFAULT_SHOWN)
        if not isinstance(show, int) or isinstance(show, bool) or show < 1:
            return ["show must be a whole number >= 1: how many changed calls the summary spells out, e.g. show = 5"]
        return []

    def requests(self, spec: GateSpec) -> list[ProbeRequest]:
        return [base_request(spec)]

    def inline_pin(self, spec: GateSpec) -> dict[str, Any]:
        return {}

    def pin_from(self, spec: GateSpec, observations: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        return {"cases": dict(sorted(_cases(spec, observations["baseline"]).items()))}

    def evaluate(
        self, spec: GateSpec, pin: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]
    ) -> Verdict:
        pinned = pin.get("cases")
        if not isinstance(pinned, Mapping) or not pinned:
            raise GateError(f"gate '{spec.name}': the golden has no 'cases'; re-bless: vtgate bless {spec.name} "
                            "--reason ...", "golden")
        now = _cases(spec, observations["baseline"])
        changed = [case for case in pinned if case in now and now[case] != pinned[case]]
        missing = [case for case in pinned if case not in now]
        added = [case for case in now if case not in pinned]
        failed = changed + missing + added
        total = len(pinned) + len(added)
        cases = Cases(total - len(failed), len(failed), tuple(failed))
        if not failed:
            return Verdict(True, f"{total}/{total} calls as pinned", {"calls": total}, {"calls": len(pinned)}, cases)
        shown = int(spec.options.get("show", DEFAULT_SHOWN))
        lines = [f"{case}: {pinned[case]} -> {now[case]}" for case in changed[:shown]]
        lines += [f"{case}: {pinned[case]} -> (not run)" for case in missing[:max(0, shown - len(lines))]]
        lines += [f"{case}: (not pinned) -> {now[case]}" for case in added[:max(0, shown - len(lines))]]
        counts = [f"{len(changed)} changed"] + ([f"{len(missing)} not run"] if missing else []) + (
            [f"{len(added)} not pinned"] if added else [])
        more = len(failed) - len(lines)
        summary = (f"{total - len(failed)}/{total} calls as pinned ({', '.join(counts)}) — " + "; ".join(lines)
                   + (f"; and {more} more" if more > 0 else ""))
        measured = {"calls": total, "changed": {case: now.get(case) for case in failed}}
        shown_pin = {"calls": len(pinned), "changed": {case: pinned.get(case) for case in failed}}
        return Verdict(False, summary, measured, shown_pin, cases)

    def describe_change(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
        before, after = dict(old.get("cases", {})), dict(new.get("cases", {}))
        changed = [case for case in before if case in after and before[case] != after[case]]
        parts = [f"{len(changed)} of {len(before)} calls changed"]
        if set(after) - set(before):
            parts.append(f"{len(set(after) - set(before))} added")
        if set(before) - set(after):
            parts.append(f"{len(set(before) - set(after))} removed")
        if changed:
            parts.append(f"first: {changed[0]}: {before[changed[0]]} -> {after[changed[0]]}")
        return "; ".join(parts)

    def describe_pin(self, pin: Mapping[str, Any]) -> str:
        return f"{len(pin.get('cases', {}))} calls"


KIND = SnapshotKind()
