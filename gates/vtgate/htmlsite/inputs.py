"""The reports a site is built from: each file is read, its kind told from its shape (check, mutate,
mutate --code, envdoc, vtbisect run, or a history entry), and validated against its JSON Schema in
docs/schemas/ before any page uses it. A file that is not one of them, or does not match its schema,
is a ``ReportInputError`` naming the file, the field and the fix (exit 2)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import vtgate

SCHEMA_FILES = {
    "check": "check.schema.json",
    "mutate": "mutate.schema.json",
    "mutate-code": "mutate-code.schema.json",
    "envdoc": "envdoc.schema.json",
    "bisect": "bisect.schema.json",
    "history": "report-history.schema.json",
}
KIND_NAMES = {
    "check": "vtgate check --json",
    "mutate": "vtgate mutate --json",
    "mutate-code": "vtgate mutate --code --json",
    "envdoc": "vtgate envdoc --json",
    "bisect": "vtbisect run --json",
    "history": "a vtgate report --history entry",
}


class ReportInputError(Exception):
    """A report that cannot be used: unreadable, of no known kind, or not matching its schema."""


class NothingToBuild(ReportInputError):
    """No report given and no run in the history folder (exit 5)."""


def default_schema_dir() -> Path:
    """docs/schemas/ of the checkout vtgate is imported from (gates/vtgate -> the repo root)."""
    return Path(vtgate.__file__).resolve().parents[2] / "docs" / "schemas"


def kind_of(data: Any) -> str | None:
    """Which report ``data`` is, from the fields only that kind has."""
    if not isinstance(data, dict):
        return None
    if data.get("kind") == "history-run":
        return "history"
    if data.get("kind") == "code":
        return "mutate-code"
    if "vtbisect" in data:
        return "bisect"
    if "mutations" in data and "kills" in data:
        return "mutate"
    if "doc" in data and "reads" in data:
        return "envdoc"
    if "gates" in data and "exit_code" in data:
        return "check"
    return None


@dataclass
class Validator:
    """Validates reports against the schemas in ``schema_dir`` (jsonschema, draft 2020-12)."""

    schema_dir: Path = field(default_factory=default_schema_dir)
    _cache: dict[str, Any] = field(default_factory=dict)

    def validate(self, kind: str, data: Any, source: str) -> None:
        try:
            import jsonschema
        except ImportError as error:
            raise ReportInputError(
                "vtgate report validates every report against docs/schemas/ with jsonschema, which is not "
                "installed; fix: pip install 'vtgate[report]'") from error
        if kind not in self._cache:
            path = self.schema_dir / SCHEMA_FILES[kind]
            try:
                self._cache[kind] = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                raise ReportInputError(
                    f"cannot read the JSON Schema {path} ({error}); fix: run from a vtgate checkout, or name "
                    "the folder of the schemas with --schemas DIR") from error
        validator = jsonschema.Draft202012Validator(self._cache[kind])
        errors = list(validator.iter_errors(data))
        if errors:
            first = jsonschema.exceptions.best_match(errors)  # the deepest cause, inside oneOf too
            where = "/".join(str(p) for p in first.absolute_path) or "(top level)"
            raise ReportInputError(
                f"{source}: not a valid {KIND_NAMES[kind]} report (docs/schemas/{SCHEMA_FILES[kind]}): "
                f"at {where}: {first.message}"
                + (f" (+{len(errors) - 1} more)" if len(errors) > 1 else "")
                + "; fix: pass the file the command wrote, unedited, or re-run the command")


@dataclass
class Reports:
    """One run's reports, by kind; ``checks`` (e.g. the ordinary check and ``-k perf``) and
    ``bisects`` may hold several."""

    checks: list[dict[str, Any]] = field(default_factory=list)
    mutate: dict[str, Any] | None = None
    code: dict[str, Any] | None = None
    envdoc: dict[str, Any] | None = None
    bisects: list[dict[str, Any]] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)

    def add(self, kind: str, data: dict[str, Any], source: str) -> None:
        if kind in ("bisect", "check"):
            many = self.bisects if kind == "bisect" else self.checks
            many.append(data)
            self.sources[f"{kind}-{len(many)}"] = source
            return
        slot = {"mutate": "mutate", "mutate-code": "code", "envdoc": "envdoc"}[kind]
        if getattr(self, slot) is not None:
            raise ReportInputError(
                f"{source}: a second {KIND_NAMES[kind]} report (the first: {self.sources[slot]}); "
                "fix: one report of each kind per run (checks and bisections excepted): keep runs apart with --history")
        setattr(self, slot, data)
        self.sources[slot] = source

    def as_mapping(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.checks:
            out["checks"] = list(self.checks)
        for slot in ("mutate", "code", "envdoc"):
            if getattr(self, slot) is not None:
                out[slot] = getattr(self, slot)
        if self.bisects:
            out["bisects"] = list(self.bisects)
        return out

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Reports:
        reports = cls()
        reports.checks = list(data.get("checks", []))
        for slot in ("mutate", "code", "envdoc"):
            if data.get(slot) is not None:
                setattr(reports, slot, data[slot])
        reports.bisects = list(data.get("bisects", []))
        return reports

    def empty(self) -> bool:
        return not self.as_mapping()

    @property
    def gates(self) -> list[dict[str, Any]]:
        """Every gate of every check report, in the order given."""
        return [gate for check in self.checks for gate in check.get("gates", [])]

    @property
    def root(self) -> str | None:
        """The tree under test, as the first check (or the declared mutate run) names it."""
        for report in [*self.checks, self.mutate]:
            if report is not None and report.get("root"):
                return str(report["root"])
        return None


def read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ReportInputError(f"cannot read {path}: {error.strerror or error}; fix: name a report file "
                               "that exists") from error
    try:
        return json.loads(text)
    except ValueError as error:
        raise ReportInputError(f"{path} is not JSON ({error}); fix: pass a report written with --json PATH") \
            from error


def load_reports(paths: Sequence[Path], validator: Validator) -> Reports:
    """Every file in ``paths``, validated, gathered into one run."""
    reports = Reports()
    for path in paths:
        data = read_json(path)
        kind = kind_of(data)
        if kind is None or kind == "history":
            raise ReportInputError(
                f"{path} is not a report vtgate report reads (check, mutate, mutate --code, envdoc, vtbisect "
                "run --json); fix: pass those files, and history entries with --history DIR")
        validator.validate(kind, data, str(path))
        reports.add(kind, data, str(path))
    return reports
