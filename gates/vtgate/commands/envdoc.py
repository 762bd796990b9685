"""``vtgate envdoc``: check that every env var the source reads is documented in ENVIRONMENT.md and
every documented one is still read. Flags override ``[tool.vtgate.envdoc]``, so it runs on any tree.
Exit 0 clean, 1 findings or an incomplete scan, 2 usage or configuration error."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from vtgate.app import app
from vtgate.envdoc import EnvdocConfig, EnvdocError, EnvdocReport, run_envdoc
from vtgate.exitcodes import ExitCode
from vtgate.output import print_table, problem, say, write_json

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
    doc: str = typer.Option(
        None, "--doc", metavar="FILE", help="The knob table (default: docs/ENVIRONMENT.md)."
    ),
    prefix: str = typer.Option(
        None, "--prefix", metavar="P", help="Names that must be documented (default VT_; '' = all)."
    ),
    wrapper: list[str] = typer.Option(
        None,
        "--wrapper",
        metavar="DOTTED.NAME:POS",
        help="A function that reads the env var named by its argument POS (repeatable).",
    ),
    include: list[str] = typer.Option(
        None, "--include", metavar="GLOB", help="Scan only files matching GLOB (repeatable)."
    ),
    exclude: list[str] = typer.Option(
        None, "--exclude", metavar="GLOB", help="Skip files matching GLOB (repeatable)."
    ),
    root: Path = typer.Option(
        None,
        "--root",
        help="Tree whose code is under test: its pyproject.toml/vtgate.toml configure the run, the config's paths and the reported paths are relative to it (default: cwd). SRC and --doc are relative to cwd.",
    ),
    jobs: int = typer.Option(None, "-j", "--jobs", min=1, help="Worker processes (default: by tree size)."),
    json_path: str = typer.Option(
        None, "--json", metavar="PATH", help="Write the JSON report to PATH ('-' = stdout)."
    ),
    github: bool = typer.Option(
        False, "--github", help="GitHub Actions: ::error annotations at file:line on stdout."
    ),
) -> int:
    """Every env knob read is documented; every documented knob is read. Exit 0 clean, 1 findings, 2 config error."""
    if github and json_path == "-":
        problem("usage error", "--github and --json - both write to stdout; give --json a file path")
        return int(ExitCode.USAGE)
    base = (root or Path.cwd()).resolve()
    if not base.is_dir():
        problem("usage error", f"--root {root}: no such directory")
        return int(ExitCode.USAGE)
    overrides: dict[str, Any] = {
        "sources": [str(Path(src).resolve()) for src in sources] if sources else None,
        "doc": str(Path(doc).resolve()) if doc else None,
        "prefix": prefix,
        "wrappers": wrapper or None,
        "include": include or None,
        "exclude": exclude or None,
        "jobs": jobs,
    }
    try:
        config = EnvdocConfig.load(base, overrides)
        report = run_envdoc(base, config)
    except EnvdocError as error:
        problem("configuration error", str(error))
        return int(ExitCode.USAGE)
    render(report)
    if json_path:
        write_json(json_path, report.to_json())
    if github:
        write_github(report)
    return int(ExitCode.OK if report.ok else ExitCode.RED)


def render(report: EnvdocReport) -> None:
    """The findings as a table on stderr, then one summary line."""
    if report.findings:
        table = Table(show_edge=False, pad_edge=False, header_style="bold")
        table.add_column("finding", no_wrap=True)
        table.add_column("name", no_wrap=True)  # knob names and file:line are copied: never folded or cut
        table.add_column("where", no_wrap=True)
        table.add_column("what to do", overflow="fold")
        for finding in report.findings:
            table.add_row(
                KIND_LABEL.get(finding.kind, finding.kind),
                finding.name or "-",
                finding.where,
                finding.hint or finding.message,
            )
        print_table(table)
    if report.unverifiable:
        first = report.unverifiable[0]
        say(f"note: {len(report.unverifiable)} default(s) are computed at run time and were not compared with the doc "
            f"(e.g. {first['name']} at {first['file']}:{first['line']}: {first['code_default']})", wrap=False)
    if report.dynamic_unscoped:
        first = report.dynamic_unscoped[0]
        say(f"note: {len(report.dynamic_unscoped)} read(s) with a fully computed name were not checked "
            f"(e.g. {first['file']}:{first['line']}); if such a helper reads knobs, name it with --wrapper", wrap=False)
    style = "green" if report.ok else "bold red"
    verdict = "envdoc ok" if report.ok else "envdoc FAILED"
    say((verdict, style), f": {report.summary}", wrap=False)


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
