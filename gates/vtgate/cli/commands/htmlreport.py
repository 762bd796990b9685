"""``vtgate report --html OUT [REPORTS...]``: one static site from the JSON reports of check, mutate,
mutate --code, envdoc and vtbisect run (docs/report.md). Exit 0 built, 2 an input that is not a valid
report or an output folder it must not overwrite, 5 nothing to build."""

from __future__ import annotations

from pathlib import Path

import typer

from vtgate.cli.app import app
from vtgate.exitcodes import ExitCode
from vtgate.htmlsite.build import build_site
from vtgate.htmlsite.inputs import NothingToBuild, ReportInputError, Validator
from vtgate.output import problem, say


@app.command()
def report(
    reports: list[Path] = typer.Argument(
        None, metavar="REPORTS", help="JSON reports: vtgate check/mutate/mutate --code/envdoc --json, vtbisect run --json."
    ),
    html: Path = typer.Option(..., "--html", metavar="OUT", help="The folder to write the site into (replaced if vtgate report wrote it)."),
    history: Path = typer.Option(
        None, "--history", metavar="DIR",
        help="Add this run to DIR (one JSON per run, by commit and time) and draw trends over every run in it.",
    ),
    commit: str = typer.Option(
        None, "--commit", metavar="SHA", help="The commit the reports were made at (default: HEAD of the check's root)."
    ),
    root: Path = typer.Option(
        None, "--root", metavar="DIR",
        help="Tree whose code is under test: the mutated source files are read from it (default: the check's root).",
    ),
    schemas: Path = typer.Option(
        None, "--schemas", metavar="DIR", help="The folder of the JSON Schemas (default: docs/schemas of this checkout)."
    ),
) -> int:
    """A static HTML site (overview, gates, mutants, bisections, perf trends) from JSON reports."""
    validator = Validator(schemas) if schemas is not None else Validator()
    if not reports and history is None:
        problem("nothing to build", "give the JSON reports (vtgate report --html OUT check.json ...) or --history DIR")
        return int(ExitCode.NOTHING)
    try:
        site = build_site(html, list(reports or []), history=history, commit=commit, root=root, validator=validator)
    except NothingToBuild as error:
        problem("nothing to build", str(error))
        return int(ExitCode.NOTHING)
    except ReportInputError as error:
        problem("usage error", str(error))
        return int(ExitCode.USAGE)
    say(f"wrote {len(site.pages)} pages to {site.out} ({site.runs} run(s), {site.seconds:.2f} s): "
        f"open {site.out / 'index.html'}")
    if site.history_entry is not None:
        say(f"history: added {site.history_entry}")
    return int(ExitCode.OK)
