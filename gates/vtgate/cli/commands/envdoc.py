"""``vtgate envdoc``: check that every env var the source reads is documented in ENVIRONMENT.md and
every documented one is still read. Flags override ``[tool.vtgate.envdoc]``, so it runs on any tree.
Exit 0 clean, 1 findings or an incomplete scan, 2 usage or configuration error (a scope that checks
nothing included)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer
from rich.table import Table
from rich.text import Text

from vtgate.cli.app import app
from vtgate.envdoc import EnvdocConfig, EnvdocError, EnvdocNothingToCheck, EnvdocReport, run_envdoc
from vtgate.exitcodes import ExitCode
from vtgate.output import console, write_json

KIND_LABEL = {
    "incomplete": "not scanned",
    "undocumented": "undocumented",
    "stale": "stale row",
    "default_mismatch": "default",
    "dynamic": "dynamic name",
    "allowlist": "allowlist",
}


@app.command()
def envdoc(
    sources: list[str] = typer.Argument(
        None, metavar="SRC", help="Folders or files to scan (default: config, else '.')."
    ),
    doc: list[str] = typer.Option(
        None,
        "--doc",
        metavar="FILE|DIR",
        help="A page listing the env vars, or a folder of .md pages (repeatable; default docs/ENVIRONMENT.md).",
    ),
    doc_registry: list[str] = typer.Option(
        None,
        "--doc-registry",
        metavar="FILE.py:DICT",
        help="A module-level dict whose keys are the documented env vars, e.g. pkg/envs.py:KNOBS (repeatable).",
    ),
    prefix: list[str] = typer.Option(
        None, "--prefix", metavar="P", help="Names that must be documented (repeatable; default VT_; '' = all)."
    ),
    wrapper: list[str] = typer.Option(
        None,
        "--wrapper",
        metavar="DOTTED.NAME:POS",
        help="A function that reads (or registers) the env var named by its argument POS; '.name:POS' for member calls (repeatable).",
    ),
    include: list[str] = typer.Option(
        None, "--include", metavar="GLOB", help="Scan only files matching GLOB (repeatable)."
    ),
    exclude: list[str] = typer.Option(
        None, "--exclude", metavar="GLOB", help="Skip files matching GLOB (repeatable)."
    ),
    deps: list[str] = typer.Option(
        None,
        "--deps",
        metavar="DIR",
        help="Folder of dependency sources (a Cargo registry, a site-packages, a Go module cache), searched for the documented names no scanned source reads: a name a dependency reads is not stale (repeatable).",
    ),
    root: list[Path] = typer.Option(
        None,
        "--root",
        metavar="DIR",
        help="Tree whose code is under test: its pyproject.toml/vtgate.toml configure the run, the config's paths and the reported paths are relative to it (default: cwd). SRC and --doc are relative to cwd.",
    ),
    jobs: list[int] = typer.Option(None, "-j", "--jobs", min=1, metavar="N", help="Worker processes (default: by tree size)."),
    json_path: list[str] = typer.Option(
        None, "--json", metavar="PATH", help="Write the JSON report to PATH ('-' = stdout)."
    ),
    github: bool = typer.Option(
        False, "--github", help="GitHub Actions: ::error annotations at file:line on stdout."
    ),
) -> int:
    """Every env knob read is documented; every documented knob is read. Exit 0 clean, 1 findings, 2 config error or nothing to check."""
    for flag, given in (("--root", root), ("--json", json_path), ("--jobs", jobs)):
        if given and len(given) > 1:
            shown = ", ".join(str(value) for value in given)
            _usage_error(f"{flag} was given {len(given)} times ({shown}); it takes one value: give it once")
            return int(ExitCode.USAGE)
    root_dir = root[0] if root else None
    json_target = json_path[0] if json_path else None
    if github and json_target == "-":
        _usage_error("--github and --json - both write to stdout; give --json a file path")
        return int(ExitCode.USAGE)
    base = (root_dir or Path.cwd()).resolve()
    if not base.is_dir():
        _usage_error(f"--root {root_dir}: no such directory")
        return int(ExitCode.USAGE)
    overrides: dict[str, Any] = {
        "sources": [str(Path(src).resolve()) for src in sources] if sources else None,
        "doc": [str(Path(page).resolve()) for page in doc] if doc else None,
        "doc_registry": [_resolve_registry(spec) for spec in doc_registry] if doc_registry else None,
        "prefix": list(prefix) if prefix else None,
        "wrappers": wrapper or None,
        "include": include or None,
        "exclude": exclude or None,
        "deps": [str(Path(folder).resolve()) for folder in deps] if deps else None,
        "jobs": jobs[0] if jobs else None,
    }
    try:
        config = EnvdocConfig.load(base, overrides)
        report = run_envdoc(base, config)
    except EnvdocNothingToCheck as error:
        console.print(Text.assemble(("nothing to check", "bold red"), ": ", str(error)), soft_wrap=True)
        return int(ExitCode.USAGE)  # a scope that checks nothing is a configuration to fix (exit 2)
    except EnvdocError as error:
        console.print(Text.assemble(("configuration error", "bold red"), ": ", str(error)), soft_wrap=True)
        return int(ExitCode.USAGE)
    render(report)
    if json_target:
        write_json(json_target, report.to_json())
    if github:
        write_github(report)
    return int(ExitCode.OK if report.ok else ExitCode.RED)


def _usage_error(message: str) -> None:
    console.print(Text.assemble(("usage error", "bold red"), ": ", message), soft_wrap=True)


def _resolve_registry(spec: str) -> str:
    file_part, sep, name = spec.rpartition(":")
    return f"{Path(file_part).resolve()}{sep}{name}" if sep and file_part else spec


TABLE_MIN_HINT = 24  # the narrowest "what to do" column worth a table; below it, one block per finding


def render(report: EnvdocReport) -> None:
    """The findings on stderr, then the notes and one summary line. Names and file:line are never
    cut: a table only when stderr is a terminal wide enough to hold every name and location whole
    beside a readable hint; otherwise (CI logs, pipes, narrow terminals) one block per finding."""
    if report.findings:
        labels = [KIND_LABEL.get(f.kind, f.kind) for f in report.findings]
        widest = (
            max(len(label) for label in labels)
            + max(len(f.name or "-") for f in report.findings)
            + max(len(f.where) for f in report.findings)
        )
        if console.is_terminal and widest + 9 + TABLE_MIN_HINT <= console.width:
            table = Table(show_edge=False, pad_edge=False, header_style="bold")
            table.add_column("finding", no_wrap=True)
            table.add_column("name", no_wrap=True)
            table.add_column("where", no_wrap=True)
            table.add_column("what to do", overflow="fold")
            for label, finding in zip(labels, report.findings, strict=True):
                table.add_row(Text(label), Text(finding.name or "-"), Text(finding.where), Text(finding.hint or finding.message))
            console.print(table)
        else:
            for label, finding in zip(labels, report.findings, strict=True):
                head = Text.assemble((label, "bold"), " ", finding.name or "-", " at ", finding.where)
                console.print(head, soft_wrap=True)
                console.print(Text("  " + finding.message), soft_wrap=True)
    for warning in report.doc_warnings:
        console.print(Text.assemble(("doc warning", "yellow"), ": ", warning), soft_wrap=True)
    for note in report.notes:
        console.print(Text("note: " + note), soft_wrap=True)
    if report.from_prose:
        first = report.from_prose[0]
        console.print(
            Text(
                f"note: {len(report.from_prose)} read name(s) are documented only by a mention in prose (read from "
                f"prose, e.g. {first['name']} at {first['doc']}:{first['doc_line']}); a table or a bullet per "
                f"variable would give each an entry"
            ),
            soft_wrap=True,
        )
    if report.read_by_dependency:
        first = report.read_by_dependency[0]
        console.print(
            Text(
                f"note: {len(report.read_by_dependency)} documented name(s) no scanned source reads are read by a "
                f"dependency (e.g. {first['name']} at {first['file']}:{first['line']}): not stale"
            ),
            soft_wrap=True,
        )
    for wrapper in report.unmatched_wrappers:
        console.print(Text.assemble(("warning", "yellow"), ": ", str(wrapper["message"])), soft_wrap=True)
    for language in report.not_scanned:
        console.print(
            Text(
                f"not scanned: {language['files']} {language['language']} file(s) (first: {language['first']}): "
                f"{language['why']}"
            ),
            soft_wrap=True,
        )
    if report.unverifiable:
        first = report.unverifiable[0]
        console.print(
            Text(
                f"note: {len(report.unverifiable)} default(s) are computed at run time and were not compared with the doc "
                f"(e.g. {first['name']} at {first['file']}:{first['line']}: {first['code_default']})"
            ),
            soft_wrap=True,
        )
    if report.dynamic_unscoped:
        first = report.dynamic_unscoped[0]
        console.print(
            Text(
                f"note: {len(report.dynamic_unscoped)} read(s) with a fully computed name were not checked "
                f"(e.g. {first['file']}:{first['line']}); if such a helper reads knobs, name it with --wrapper"
            ),
            soft_wrap=True,
        )
    style = "green" if report.ok else "bold red"
    verdict = "envdoc ok" if report.ok else "envdoc FAILED"
    console.print(Text.assemble((verdict, style), ": ", report.summary), soft_wrap=True)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def write_github(report: EnvdocReport) -> None:
    """One ``::error`` workflow command per finding, located at file:line where there is one."""
    for finding in report.findings:
        properties = []
        if finding.file and finding.kind != "allowlist":  # allowlist findings point at a config table
            properties.append(f"file={_escape_property(finding.file)}")
            if finding.line:
                properties.append(f"line={finding.line}")
        properties.append(f"title={_escape_property('envdoc ' + KIND_LABEL.get(finding.kind, finding.kind))}")
        sys.stdout.write(f"::error {','.join(properties)}::{_escape_data(finding.message)}\n")
    sys.stdout.flush()
