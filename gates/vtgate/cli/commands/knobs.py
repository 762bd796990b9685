"""``vtgate knobs``: the documented knob values no gate sets (docs/check.md "Knob coverage").
Exit 0 every value set or exempted, 1 a value neither set nor exempted, 2 a bad suite or doc."""

from __future__ import annotations

from pathlib import Path

import typer

from vtgate.cli.app import app
from vtgate.cli.commands.check import ROOT_OPTION, SUITE_OPTION, config_error
from vtgate.errors import SuiteError
from vtgate.exitcodes import ExitCode
from vtgate.output import say, write_json
from vtgate.suite.knobcoverage import knob_coverage
from vtgate.suite.load import load_suite


@app.command("knobs")
def knobs(
    suite: Path = SUITE_OPTION,
    root: Path = ROOT_OPTION,
    json_path: str = typer.Option(None, "--json", metavar="PATH", help="Write the JSON report to PATH ('-' = stdout)."),
) -> int:
    """Knob coverage: every documented knob value some gate sets, or an exemption with a reason."""
    try:
        loaded = load_suite(suite)
        report = knob_coverage(loaded, root)
    except SuiteError as error:
        raise config_error(error) from None
    for knob in report.knobs:
        wanted = ", ".join("a non-default value" if v == "<other>" else v for v in knob.required)
        seen = "; ".join(f"{value} by {', '.join(gates)}" for value, gates in knob.set_by.items()) or "no gate sets it"
        if knob.missing and knob.exemption:
            say(("exempt", "dim"), f" {knob.name} (default {knob.default}): {knob.exemption}")
        elif knob.missing:
            missing = ", ".join("a non-default value" if v == "<other>" else v for v in knob.missing)
            say(("uncovered", "bold red"), f" {knob.name} (default {knob.default}): no gate sets {missing} "
                f"(needed: {wanted}; set: {seen}); add a gate that runs it (env, over, invariant_over or configs) "
                f"or exempt it with a reason in [suite] knob_exemptions")
        else:
            say(("covered", "green"), f" {knob.name} (default {knob.default}): {seen}")
    for name in report.unknown_exemptions:
        say(("unknown exemption", "bold red"), f" {name}: [suite] knob_exemptions names a knob the doc does not list")
    uncovered = [k.name for k in report.knobs if not k.ok]
    verdict = ("ok", "green") if report.ok else ("FAILED", "bold red")
    say(verdict, f": {len(report.knobs)} documented knobs, {len(uncovered)} with a value no gate sets"
        + (f" ({', '.join(uncovered)})" if uncovered else "")
        + f", {sum(1 for k in report.knobs if k.missing and k.exemption)} exempted")
    if json_path:
        write_json(json_path, report.to_json())
    return int(ExitCode.OK if report.ok else ExitCode.RED)
