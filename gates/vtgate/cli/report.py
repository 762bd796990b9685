"""Reporters for a CheckReport: the rich table on stderr, ``--json`` (docs/json-formats.md,
docs/schemas/check.schema.json), ``--junit`` (one testcase per gate) and ``--github`` (error annotations
and a markdown job summary)."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from vtgate.output import atomic_write_text, print_table, say, table_width, write_json
from vtgate.run.check import CheckReport, GateResult
from vtgate.suite.goldens import display_path

STYLES = {
    "green": "green", "red": "bold red", "error": "bold magenta",
    "deliberate-red": "yellow", "unexpected-green": "bold red",
}


WIDE = 120  # below this many columns the summary would be squeezed into a narrow column


def render_table(report: CheckReport, console: Console) -> None:
    """The wide table when the terminal has room for it (names whole), else the narrow layout."""
    wide = _wide_table(report) if console.width >= WIDE else None
    if wide is not None and table_width(wide, console) <= console.width:
        print_table(wide, console)
    else:
        _render_narrow(report, console)
    for result in report.gates:
        if result.status == "error" and "--- probe stderr" in (result.error or ""):
            console.print()
            say((result.name, "bold magenta"), f" ({result.error_kind}):", to=console)
            say(result.error or "", to=console)
    for path in report.unused_goldens:
        say(("unused golden", "yellow"), f": {display_path(path, report.suite.root)} is used by no gate "
            "(delete it, or point a gate at it)", to=console)
    say(*_footer(report), to=console)
    if report.ambient_env:
        say((f"ambient knobs from your shell reached the probes: {_knobs(report.ambient_env)} "
             "(--isolate-env runs without them)", "yellow"), to=console)


def _summary(result: GateResult) -> str:
    summary = result.summary.split("\n--- probe stderr")[0] if result.status == "error" else result.summary
    if result.failed and result.ambient_env:
        summary += f" (under ambient {_knobs(result.ambient_env)} from your shell)"
    return summary


def _knobs(env: Mapping[str, str]) -> str:
    return " ".join(f"{name}={value}" for name, value in env.items())


def _wide_table(report: CheckReport) -> Table:
    """One row a gate. Everything but the summary is short or a name the user passes back (--gate
    NAME): never wrapped; the summary takes the width that is left."""
    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    for column in ("status", "gate", "kind", "tier"):
        table.add_column(column, no_wrap=True)
    table.add_column("summary", overflow="fold")
    table.add_column("s", no_wrap=True, justify="right")
    for result in report.gates:
        table.add_row(Text(result.status, style=STYLES.get(result.status, "")), result.name, result.spec.kind,
                      result.spec.tier, _summary(result), f"{result.seconds:.1f}")
    return table


def _render_narrow(report: CheckReport, console: Console) -> None:
    """A CI log or a narrow terminal (rich assumes 80 columns when not on a terminal): a gate's name,
    kind, tier and time on one line, its summary indented under it at the whole width."""
    status_width = max((len(r.status) for r in report.gates), default=6)
    for result in report.gates:
        say((f"{result.status:<{status_width}}", STYLES.get(result.status, "")), " ", (result.name, "bold"),
            f"  {result.spec.kind}, {result.spec.tier}, {result.seconds:.1f} s", to=console)
        say(_summary(result), to=console, indent=status_width + 1)


def _footer(report: CheckReport) -> tuple[tuple[str, str], str]:
    counts: dict[str, int] = {}
    for result in report.gates:
        counts[result.status] = counts.get(result.status, 0) + 1
    parts = ", ".join(f"{n} {status}" for status, n in counts.items())
    verdict = ("ok", "green") if report.ok else ("FAILED", "bold red")
    return verdict, (f": {len(report.gates)} gates ({parts}) in {report.seconds:.1f} s; "
                     f"{report.probe_runs} probe runs for {report.probe_requests} requests ({report.shared_runs} shared)")


def write_json_report(report: CheckReport, destination: str) -> None:
    write_json(destination, report.to_json())


def junit_xml(report: CheckReport) -> str:
    counts = {"failures": 0, "errors": 0, "skipped": 0}
    suite = ET.Element("testsuite", name="vtgate", tests=str(len(report.gates)), time=f"{report.seconds:.3f}")
    for result in report.gates:
        case = ET.SubElement(suite, "testcase", name=result.name, classname=f"vtgate.{result.spec.kind}",
                             time=f"{result.seconds:.3f}")
        case.set("file", str(result.spec.source))
        if result.spec.line:
            case.set("line", str(result.spec.line))
        if result.status in ("red", "unexpected-green"):
            counts["failures"] += 1
            ET.SubElement(case, "failure", message=result.summary, type=result.status).text = result.summary
        elif result.status == "error":
            counts["errors"] += 1
            ET.SubElement(case, "error", message=result.summary.splitlines()[0], type=result.error_kind or "error"
                          ).text = result.error
        elif result.status == "deliberate-red":
            counts["skipped"] += 1
            mark = result.spec.deliberate_red
            message = f"deliberate red, owned by {mark.issue}: {mark.reason}" if mark else result.summary
            ET.SubElement(case, "skipped", message=message).text = result.summary
        ET.SubElement(case, "system-out").text = result.summary
    for name, count in counts.items():
        suite.set(name, str(count))
    if report.ambient_env or report.ambient.isolated:
        properties = ET.Element("properties")
        ET.SubElement(properties, "property", name="isolate_env", value=str(report.ambient.isolated).lower())
        for name, value in report.ambient_env.items():
            ET.SubElement(properties, "property", name=f"ambient_env.{name}", value=value)
        suite.insert(0, properties)
    suites = ET.Element("testsuites")
    suites.append(suite)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def write_junit(report: CheckReport, path: str | Path) -> None:
    atomic_write_text(Path(path), junit_xml(report))


def _escape(value: str, property_value: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def github_annotations(report: CheckReport) -> list[str]:
    lines = []
    for result in report.gates:
        if not result.failed:
            continue
        file = display_path(result.spec.source, report.suite.root)
        location = f"file={_escape(file, True)}" + (f",line={result.spec.line}" if result.spec.line else "")
        title = _escape(f"vtgate {result.status}: {result.name}", True)
        lines.append(f"::error {location},title={title}::{_escape(result.summary)}")
    return lines


def markdown_summary(report: CheckReport) -> str:
    icon = {"green": "✅", "red": "❌", "error": "💥", "deliberate-red": "🟡", "unexpected-green": "❗"}
    rows = ["| | gate | kind | tier | summary | s |", "|---|---|---|---|---|---|"]
    for result in report.gates:
        summary = result.summary.splitlines()[0].replace("|", "\\|")
        rows.append(f"| {icon.get(result.status, '')} {result.status} | `{result.name}` | {result.spec.kind} | "
                    f"{result.spec.tier} | {summary} | {result.seconds:.1f} |")
    head = "### vtgate check: " + ("ok" if report.ok else "FAILED")
    foot = (f"\n{len(report.gates)} gates in {report.seconds:.1f} s; {report.probe_runs} probe runs "
            f"({report.shared_runs} shared)\n")
    return head + "\n\n" + "\n".join(rows) + "\n" + foot


def write_github(report: CheckReport, *, to_stdout: bool = True) -> None:
    """Annotations on stdout (stderr when stdout carries ``--json -``); the markdown summary appended
    to $GITHUB_STEP_SUMMARY when that is set."""
    import sys

    stream = sys.stdout if to_stdout else sys.stderr
    for line in github_annotations(report):
        stream.write(line + "\n")
    stream.flush()
    summary_path = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary_path:
        with open(summary_path, "a", encoding="utf-8") as handle:
            handle.write(markdown_summary(report))
