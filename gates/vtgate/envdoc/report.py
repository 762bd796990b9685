"""Compare what the code reads with what the doc table says, both ways, and hold the result:
undocumented reads (every file:line), stale rows, default mismatches, uncovered dynamic names,
allowlist problems and skipped files, each a Finding; plus what was checked but is not a finding
(unverifiable defaults, dynamic names a documented family covers)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from vtgate.envdoc.config import AllowEntry, EnvdocConfig
from vtgate.envdoc.doctable import DocRow, values_equal
from vtgate.envdoc.model import LITERAL_DEFAULT, NONLITERAL_DEFAULT, EnvRead, FileScan

SCHEMA = 1
STALE_HINT = "read nowhere: delete the row"  # the hint of a stale row nothing explains yet
KIND_ORDER = ("incomplete", "undocumented", "stale", "default_mismatch", "dynamic", "allowlist")


@dataclass(frozen=True)
class Finding:
    """One problem, located: ``file``/``line`` is the read for code findings, the doc row for stale
    rows, the config file for allowlist problems (line None when unknown)."""

    kind: str  # incomplete | undocumented | stale | default_mismatch | dynamic | allowlist
    name: str
    file: str
    line: int | None
    message: str  # the whole story, with the fix
    hint: str = ""  # a few words for the terminal table

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


@dataclass
class EnvdocReport:
    """The verdict of one envdoc run. ``ok`` is True only with no findings and every file scanned."""

    doc: str
    prefix: str
    reads: list[EnvRead]  # in scope: prefix-matching, documented or allowlisted names, scoped dynamic
    rows: list[DocRow]
    findings: list[Finding]
    mismatches: list[dict[str, Any]] = field(default_factory=list)  # JSON records of default_mismatch
    unverifiable: list[dict[str, Any]] = field(default_factory=list)
    dynamic_covered: list[dict[str, Any]] = field(default_factory=list)
    dynamic_unscoped: list[dict[str, Any]] = field(default_factory=list)
    doc_warnings: list[str] = field(default_factory=list)  # doc rows that could not be read (skipped)
    notes: list[str] = field(default_factory=list)  # wrapper calls that matched only by bare name, ...
    suppressed: list[dict[str, Any]] = field(default_factory=list)  # reads silenced in the source
    not_scanned: list[dict[str, Any]] = field(default_factory=list)  # source files by language not read
    unmatched_wrappers: list[dict[str, Any]] = field(default_factory=list)  # wrappers that read nothing
    stale_elsewhere: list[dict[str, Any]] = field(default_factory=list)  # stale names seen in unscanned files
    from_prose: list[dict[str, Any]] = field(default_factory=list)  # reads documented only by a prose mention
    read_by_dependency: list[dict[str, Any]] = field(default_factory=list)  # rows no scanned source reads but a --deps one does
    dependencies: dict[str, Any] = field(default_factory=dict)  # declared (count), manifests, scanned folders
    files_scanned: int = 0
    files_parsed: int = 0
    seconds: float = 0.0

    def of_kind(self, kind: str) -> list[Finding]:
        return [finding for finding in self.findings if finding.kind == kind]

    @property
    def incomplete(self) -> bool:
        return bool(self.of_kind("incomplete"))

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def knobs(self) -> int:
        return len({read.name for read in self.reads if read.name is not None})

    @property
    def summary(self) -> str:
        text = (
            f"{len(self.reads)} reads of {self.knobs} knobs, {len(self.rows)} documented; "
            f"{len(self.of_kind('undocumented'))} undocumented, {len(self.of_kind('stale'))} stale, "
            f"{len(self.of_kind('default_mismatch'))} default mismatches"
        )
        extras = [
            (len(self.of_kind("dynamic")), "dynamic names uncovered"),
            (len(self.of_kind("allowlist")), "allowlist problems"),
        ]
        text += "".join(f", {count} {label}" for count, label in extras if count)
        skipped = len(self.of_kind("incomplete"))
        if skipped:
            text += f"; INCOMPLETE: {skipped} file{'s' if skipped != 1 else ''} could not be scanned"
        return text

    def _also_in(self, name: str) -> dict[str, Any]:
        hit = next((record for record in self.stale_elsewhere if record["name"] == name), None)
        return {"also_in": hit["also_in"]} if hit else {}

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` report: docs/json-formats.md, docs/schemas/envdoc.schema.json."""

        def rows(kind: str) -> list[Finding]:
            return self.of_kind(kind)

        return {
            "schema": SCHEMA,
            "ok": self.ok,
            "summary": self.summary,
            "doc": self.doc,
            "prefix": self.prefix,
            "reads": len(self.reads),
            "knobs": self.knobs,
            "documented": len(self.rows),
            "undocumented": [{"name": f.name, "file": f.file, "line": f.line} for f in rows("undocumented")],
            "stale": [
                {"name": f.name, "doc": f.file, "doc_line": f.line, **self._also_in(f.name)} for f in rows("stale")
            ],
            "default_mismatch": self.mismatches,
            "dynamic": [{"prefix": f.name, "file": f.file, "line": f.line} for f in rows("dynamic")],
            "incomplete": [{"file": f.file, "line": f.line, "reason": f.message} for f in rows("incomplete")],
            "allowlist": [{"name": f.name, "problem": f.message} for f in rows("allowlist")],
            "unverifiable_default": self.unverifiable,
            "dynamic_covered": self.dynamic_covered,
            "dynamic_unscoped": self.dynamic_unscoped,
            "doc_warnings": self.doc_warnings,
            "notes": self.notes,
            "suppressed": self.suppressed,
            "files": {"scanned": self.files_scanned, "parsed": self.files_parsed},
            "not_scanned": self.not_scanned,
            "unmatched_wrappers": self.unmatched_wrappers,
            "stale_elsewhere": self.stale_elsewhere,
            "from_prose": self.from_prose,
            "read_by_dependency": self.read_by_dependency,
            "dependencies": self.dependencies,
            "seconds": round(self.seconds, 3),
        }


def _in_scope_dynamic(prefix: str, filter_prefixes: Sequence[str]) -> bool:
    for filter_prefix in filter_prefixes:
        if not filter_prefix:
            return True
        if prefix and (prefix.startswith(filter_prefix) or filter_prefix.startswith(prefix)):
            return True
    return False


def compare(
    scans: Sequence[FileScan],
    reads: Sequence[EnvRead],
    rows: Sequence[DocRow],
    config: EnvdocConfig,
    doc_display: str,
) -> EnvdocReport:
    """Check ``reads`` against ``rows`` and the allowlist under ``config``'s prefix."""
    prefix = config.prefix
    exact = {row.name: row for row in rows if not row.is_pattern}
    patterns = [row for row in rows if row.is_pattern]
    used_rows: set[str] = set()
    used_allow: set[str] = set()
    findings: list[Finding] = []
    report = EnvdocReport(doc=doc_display, prefix=prefix, reads=[], rows=list(rows), findings=findings)

    def allowed(name: str, file: str) -> AllowEntry | None:
        return next((entry for entry in config.allowlist if entry.covers(name) and entry.applies_to(file)), None)

    for scan in scans:
        if scan.error:
            findings.append(
                Finding(
                    "incomplete",
                    "",
                    scan.file,
                    scan.error_line,
                    f"{scan.file} {scan.error}; it was skipped, so the run is incomplete",
                    scan.error,
                )
            )
    report.files_scanned = len(scans)
    report.files_parsed = sum(1 for scan in scans if scan.parsed)

    seen_undocumented: set[tuple[str, str, int]] = set()
    dynamic_reads = [read for read in reads if read.is_dynamic]
    for read in reads:
        if read.is_dynamic:
            continue
        name = read.name or ""
        row = exact.get(name)
        family = None if row else next((p for p in patterns if p.covers(name)), None)
        entry = allowed(name, read.file)
        if entry:
            used_allow.add(entry.name)
        if row or family:
            used_rows.add((row or family).name)  # type: ignore[union-attr]
            report.reads.append(read)
            if row:
                _check_default(read, row, doc_display, findings, report)
            continue
        if entry:
            report.reads.append(read)
            continue
        if not config.in_scope(name):
            continue
        report.reads.append(read)
        key = (name, read.file, read.line)
        if key not in seen_undocumented:
            seen_undocumented.add(key)
            findings.append(
                Finding(
                    "undocumented",
                    name,
                    read.file,
                    read.line,
                    f"{name} is read here ({read.form}) but has no row in {doc_display}: add "
                    f"| {name} | {_default_cell(read)} | <effect> | <yes/no> |",
                    f"add a row (default {_default_cell(read)})",
                )
            )

    for read in dynamic_reads:
        family = next((p for p in patterns if p.covers_dynamic(read.prefix, read.suffix)), None)
        entry = next(
            (e for e in config.allowlist if e.covers_prefix(read.prefix) and e.applies_to(read.file)), None
        )
        where = {"prefix": read.prefix, "file": read.file, "line": read.line}
        if family or entry:
            if family:
                used_rows.add(family.name)
            if entry:
                used_allow.add(entry.name)
            report.reads.append(read)
            report.dynamic_covered.append(
                {**where, "by": (family.name if family else f"allowlist {entry.name}")}  # type: ignore[union-attr]
            )
            continue
        if not _in_scope_dynamic(read.prefix, config.prefixes):
            if not read.prefix:
                report.dynamic_unscoped.append({"file": read.file, "line": read.line, "form": read.form})
            continue
        report.reads.append(read)
        shown = f"{read.prefix}*" if read.prefix else "<any name>"
        findings.append(
            Finding(
                "dynamic",
                read.prefix,
                read.file,
                read.line,
                f"env var name is computed at run time ({read.form}, known prefix {read.prefix!r}); document the "
                f"family as a row | {shown} | ... | in {doc_display}, add an allowlist entry with a reason, or "
                f"write the name as a literal",
                f"document {shown} or allowlist it",
            )
        )

    # A computed name with a specific literal prefix may be what reads a documented exact row.
    dynamic_prefixes = [
        r.prefix for r in dynamic_reads if r.prefix and all(len(r.prefix) > len(p) for p in config.prefixes)
    ]
    for row in rows:
        if row.origin == "prose":  # a mention in running text, not an entry: nothing to delete
            if row.name in used_rows:
                report.from_prose.append({"name": row.name, "doc": row.file or doc_display, "doc_line": row.line})
            continue
        if row.name in used_rows:
            continue
        if any((row.pattern_prefix if row.is_pattern else row.name).startswith(p) for p in dynamic_prefixes):
            continue  # a computed name with that literal prefix may be it (or a member of the family)
        what = "no variable of this family" if row.is_pattern else "it"
        findings.append(
            Finding(
                "stale",
                row.name,
                row.file or doc_display,
                row.line,
                f"{row.name} is documented here but no scanned source reads {what}: delete the row, or add the "
                f"folder that reads it to the sources"
                + ("; NOTE the run is incomplete: a skipped file may read it" if report.incomplete else ""),
                STALE_HINT,
            )
        )

    origin = config.source
    for entry in config.allowlist:
        documented = [row.name for row in rows if entry.covers(row.name) or row.name == entry.name]
        if documented:
            findings.append(
                Finding(
                    "allowlist",
                    entry.name,
                    origin,
                    None,
                    f"allowlist entry {entry.name} in {origin} also has a row in {doc_display} ({', '.join(documented)}): "
                    f"a knob is either documented or allowlisted; remove one",
                    "documented and allowlisted: remove one",
                )
            )
        elif entry.name not in used_allow:
            findings.append(
                Finding(
                    "allowlist",
                    entry.name,
                    origin,
                    None,
                    f"allowlist entry {entry.name} in {origin} matches no read in the scanned sources: remove it",
                    "matches no read: remove it",
                )
            )

    findings.sort(key=lambda f: (KIND_ORDER.index(f.kind), f.file, f.line or 0, f.name))
    report.mismatches.sort(key=lambda record: (record["file"], record["line"], record["name"]))
    return report


def _default_cell(read: EnvRead) -> str:
    if read.default_kind == LITERAL_DEFAULT:
        return f"`{read.default}`"
    if read.default_kind == NONLITERAL_DEFAULT:
        return f"`{read.default}` (computed)"
    return "(unset)"


def _check_default(
    read: EnvRead, row: DocRow, doc_display: str, findings: list[Finding], report: EnvdocReport
) -> None:
    name = read.name or ""
    record = {
        "name": name,
        "code_default": read.default,
        "doc_default": row.default,
        "file": read.file,
        "line": read.line,
        "doc_line": row.line,
    }
    if read.default_kind == NONLITERAL_DEFAULT:
        report.unverifiable.append(record)
        return
    if read.default_kind != LITERAL_DEFAULT or not row.compare_default:
        return
    documented = row.default_value
    code = read.default or ""
    if (documented is None and code == "") or (documented is not None and values_equal(code, documented)):
        return
    report.mismatches.append(record)
    findings.append(
        Finding(
            "default_mismatch",
            name,
            read.file,
            read.line,
            f"{name} defaults to {code!r} here but {row.file or doc_display}:{row.line} says {row.default or '(empty)'!r}: "
            f"make the code and the row agree",
            f"code {code!r}, doc {row.default or '(empty)'!r} (line {row.line})",
        )
    )
