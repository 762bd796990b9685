"""Knob coverage: which documented knob values no gate ever sets. ``vtgate knobs``.

A bug behind a knob value that no gate sets is invisible to the suite: a policy nobody pins, an arm
nobody runs. For every knob the env-var doc lists (the pages ``vtgate envdoc`` reads) whose name has
one of the suite's ``knob_prefixes`` (or that a gate sets), this module
derives the values that must be exercised and the values the suite's gates set (env pins, swept
``over`` / ``invariant_over`` values, ``configs`` env: everything a gate kind requests):

- an on/off knob (default ``true``/``false``, ``on``/``off``, or ``0``/``1`` where the doc says what
  a value means, ``1 = ...``): the other value;
- a knob whose doc names its values in backticks (``\\`lru\\` ... or \\`pin\\```): each of them;
- any other knob (a size, a count, a path): at least one value other than the default.

A knob the suite cannot or need not exercise is exempted in the suite, with a reason:
``[suite] knob_exemptions = { VT_PROFILE = "timing only: no output depends on it" }``. A value that
is neither set nor exempted makes the report fail (exit 1)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vtgate.envdoc import EnvdocConfig
from vtgate.envdoc.doctable import DocRow, parse_docs
from vtgate.envdoc.model import EnvdocError
from vtgate.errors import SuiteError
from vtgate.kinds import get_kind
from vtgate.suite.records import Suite

SWITCHES = ({"0", "1"}, {"true", "false"}, {"on", "off"}, {"yes", "no"})
SWITCH_MEANING = re.compile(r"(^|\W)[01]\s*(=|:)")
BACKTICKED = re.compile(r"`([^`\s]+)`")


@dataclass(frozen=True)
class KnobCoverage:
    name: str
    default: str
    required: tuple[str, ...]  # values that must be set ("<other>" = any value but the default)
    set_by: Mapping[str, tuple[str, ...]]  # value -> gates that set it
    missing: tuple[str, ...]
    exemption: str | None
    doc: str

    @property
    def ok(self) -> bool:
        return not self.missing or self.exemption is not None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "default": self.default, "required": list(self.required),
                "set_by": {v: list(g) for v, g in self.set_by.items()}, "missing": list(self.missing),
                "exemption": self.exemption, "doc": self.doc, "ok": self.ok}


@dataclass
class CoverageReport:
    knobs: list[KnobCoverage] = field(default_factory=list)
    unknown_exemptions: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(k.ok for k in self.knobs) and not self.unknown_exemptions

    def to_json(self) -> dict[str, Any]:
        return {"schema": 1, "ok": self.ok, "knobs": [k.to_json() for k in self.knobs],
                "uncovered": [k.name for k in self.knobs if not k.ok],
                "unknown_exemptions": self.unknown_exemptions}


def required_values(row: DocRow) -> tuple[str, ...]:
    default = row.default.strip().strip("`").strip()
    lowered = default.lower()
    for pair in SWITCHES:
        # 0/1 is a switch only when the doc says what a value means ("1 = ..."); else it is a count
        if lowered in pair and (pair != {"0", "1"} or SWITCH_MEANING.search(row.effect)):
            return tuple(sorted(pair - {lowered}))
    named = [v for v in dict.fromkeys(BACKTICKED.findall(row.effect)) if not v.startswith(("-", "$", "~", "/"))
             and not v.isupper()]  # backticked names of other knobs and paths are not values
    if default and default in named:
        return tuple(v for v in named if v != default)
    return ("<other>",)


def values_set(suite: Suite) -> dict[str, dict[str, list[str]]]:
    """knob -> value -> gates that set it (env pins and every run a gate kind requests)."""
    found: dict[str, dict[str, list[str]]] = {}
    for spec in suite.gates:
        for request in get_kind(spec.kind).requests(spec):
            for name, value in request.env.items():
                gates = found.setdefault(name, {}).setdefault(str(value), [])
                if spec.name not in gates:
                    gates.append(spec.name)
    return found


def knob_coverage(suite: Suite, root: Path | None = None) -> CoverageReport:
    """The coverage of every documented knob by the suite's gates (see the module docstring)."""
    base = root or suite.root
    try:
        config = EnvdocConfig.load(base)
        docs = parse_docs([(base / page, page) for page in config.docs])
    except EnvdocError as error:
        raise SuiteError(f"knob coverage needs the env-var doc: {error}") from None
    exemptions = dict(suite.settings.knob_exemptions)
    set_values = values_set(suite)
    report = CoverageReport()
    documented = set()
    prefixes = tuple(p for p in suite.settings.knob_prefixes if p)
    for row in docs.rows:
        # the engine's knobs: names with the suite's knob prefixes, or that a gate sets; the doc may
        # list other variables (CI's, the tools' own) that no gate is meant to set
        if row.is_pattern or not (row.name.startswith(prefixes) or row.name in set_values):
            continue
        documented.add(row.name)
        required = required_values(row)
        seen = set_values.get(row.name, {})
        default = row.default.strip().strip("`").strip()
        if required == ("<other>",):
            missing: tuple[str, ...] = () if any(v != default for v in seen) else ("<other>",)
        else:
            missing = tuple(v for v in required if v not in seen)
        report.knobs.append(KnobCoverage(row.name, default, required,
                                         {v: tuple(g) for v, g in sorted(seen.items())}, missing,
                                         exemptions.get(row.name), row.where))
    report.unknown_exemptions = sorted(set(exemptions) - documented)
    return report
