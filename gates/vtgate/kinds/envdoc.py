"""``envdoc``: the env-doc checker (``vtgate envdoc``) as a gate: green when every knob the code reads
is documented and every documented knob is read. It brings its own probe, ``observe`` below, which
runs in a subprocess with cwd = the root under test like any other probe, so ``evaluate`` stays pure."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vtgate.errors import GateError
from vtgate.kinds._common import PinlessKind
from vtgate.suite.records import Cases, GateSpec, ProbeRef, ProbeRequest, Verdict

FINDINGS = ("undocumented", "stale", "default_mismatch", "dynamic", "incomplete", "allowlist")


def observe() -> dict[str, Any]:
    """Probe body: run the env-doc checker on the current directory (the root under test)."""
    from vtgate.envdoc import EnvdocConfig, run_envdoc

    root = Path.cwd()
    report = run_envdoc(root, EnvdocConfig.load(root))
    data = report.to_json()
    if isinstance(data, str):
        data = json.loads(data)
    return {"envdoc": data, "metrics": {"ok": bool(report.ok)}, "meta": {"summary": str(report.summary)}}


def _finding_id(section: str, item: Any) -> str:
    if isinstance(item, Mapping):
        name = item.get("name") or item.get("prefix") or item.get("file") or "?"
        where = f" ({item['file']}:{item['line']})" if "file" in item and "line" in item else ""
        return f"{section}:{name}{where}"
    return f"{section}:{item}"


class EnvdocKind(PinlessKind):
    name = "envdoc"
    option_keys: frozenset[str] = frozenset()
    default_probe: ProbeRef | None = ProbeRef(callable="vtgate.kinds.envdoc:observe")

    def validate(self, options: Mapping[str, Any]) -> list[str]:
        return []

    def requests(self, spec: GateSpec) -> list[ProbeRequest]:
        probe = spec.probe or self.default_probe
        assert probe is not None
        return [ProbeRequest("baseline", probe, dict(spec.args), dict(spec.env), check_stale=False)]

    def evaluate(
        self, spec: GateSpec, pin: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]
    ) -> Verdict:
        observation = observations["baseline"]
        report = observation.get("envdoc")
        ok = observation.get("metrics", {}).get("ok")
        if not isinstance(report, Mapping) or not isinstance(ok, bool):
            raise GateError(f"gate '{spec.name}': the env-doc probe returned no report", "probe")
        findings = [_finding_id(s, item) for s in FINDINGS for item in report.get(s, []) or []]
        documented = report.get("documented", 0)
        summary = str(observation.get("meta", {}).get("summary") or "")
        if not summary:
            summary = f"{documented} knobs documented, {len(findings)} findings"
        if not ok and findings:
            summary += " — first: " + findings[0]
        return Verdict(ok, summary, {"findings": findings}, {"findings": []},
                       Cases(int(documented or 0), len(findings), tuple(findings)))

    def describe_change(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
        return "the env-doc gate has no pin"

    def describe_pin(self, pin: Mapping[str, Any]) -> str:
        return "every knob documented"


KIND = EnvdocKind()
