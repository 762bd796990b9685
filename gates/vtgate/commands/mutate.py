"""``vtgate mutate``: run the suite's mutations and the built-in negative controls, print the kill
matrix, and exit 0 (every expectation met, no vacuous pin), 1, 2 (bad suite or patch), 3 (a run
errored), 5 (no gate selected)."""

from __future__ import annotations

import signal
from pathlib import Path
from types import FrameType

import typer

from vtgate.app import app
from vtgate.commands.check import ROOT_OPTION, SUITE_OPTION
from vtgate.errors import SuiteError
from vtgate.exitcodes import ExitCode
from vtgate.mutate import ArmsError, PatchError, run_mutate
from vtgate.mutate.report import render, write_json_report
from vtgate.output import console
from vtgate.suite import load_suite


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # SIGTERM cleans up like Ctrl-C: copies removed, probes killed


@app.command()
def mutate(
    suite: Path = SUITE_OPTION,
    root: Path = ROOT_OPTION,
    gate: list[str] = typer.Option(None, "--gate", "-g", help="Only this gate (repeatable)."),
    keyword: str = typer.Option(None, "-k", help="Select gates whose name/kind/tier match EXPR (and/or/not)."),
    mutation: list[str] = typer.Option(None, "--mutation", "-m", help="Only this declared mutation (repeatable)."),
    no_auto: bool = typer.Option(False, "--no-auto", help="Skip the built-in negative controls and arm mutations."),
    jobs: int = typer.Option(None, "-j", "--jobs", min=1, help="Probe runs in parallel (default: cores)."),
    json_path: str = typer.Option(None, "--json", metavar="PATH", help="Write the JSON report to PATH ('-' = stdout)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress lines."),
) -> int:
    """Prove every pin can fail: the kill matrix of declared mutations and built-in controls."""
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        loaded = load_suite(suite)
        if root is not None and not root.is_dir():
            raise SuiteError(f"--root {root}: no such directory")
        progress = None if quiet else (lambda message: console.print(f"[dim]{message}[/]", highlight=False))
        report = run_mutate(loaded, root=root, select=gate or None, keyword=keyword, only=mutation or None,
                            jobs=jobs, auto=not no_auto, progress=progress)
    except (SuiteError, PatchError) as error:
        console.print("[bold red]configuration error[/]: ", end="")
        console.print(str(error), markup=False, highlight=False)
        return int(ExitCode.USAGE)
    except KeyboardInterrupt:
        console.print("interrupted: probe runs stopped, temporary copies removed; your tree was not touched")
        raise typer.Exit(130) from None
    except ArmsError as error:
        console.print(f"[bold magenta]error[/]: {error}", highlight=False)
        return int(ExitCode.INTERNAL)
    finally:
        signal.signal(signal.SIGTERM, previous)
    if not report.gates:
        console.print("nothing to mutate: no gate selected" + (f" by -k {keyword!r}" if keyword else ""))
    else:
        render(report, console)
    if json_path:
        write_json_report(report, json_path)
    return int(report.exit_code)
