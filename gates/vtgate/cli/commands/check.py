"""``vtgate check``: run the suite's gates against the code under ``--root`` and report."""

from __future__ import annotations

from pathlib import Path

import typer

from vtgate.cli.app import app
from vtgate.cli.commands.executor_options import (
    EXECUTOR_OPTION,
    FALLBACK_OPTION,
    RESOURCES_OPTION,
    SCHEDULER_OPTION,
    executor_settings,
)
from vtgate.cli.exits import Interrupted
from vtgate.cli.progress import live_progress, progress_wanted
from vtgate.cli.report import render_table, write_github, write_json_report, write_junit
from vtgate.envdoc import EnvdocError
from vtgate.envdoc.scan import discover, scan_all
from vtgate.errors import SuiteError
from vtgate.exitcodes import ExitCode
from vtgate.output import console, problem, say, write_json
from vtgate.perf.legs import WAIT_QUIET_ENV
from vtgate.run.check import run_check
from vtgate.run.executor import ExecutorError
from vtgate.suite.load import load_suite
from vtgate.suite.records import SuiteSettings

SUITE_OPTION = typer.Option(None, "--suite", help="Suite TOML (default: vtgate.toml or [tool.vtgate] in pyproject.toml).")
ROOT_OPTION = typer.Option(None, "--root", help="Tree whose code is under test (default: the suite's project).")
ISOLATE_OPTION = typer.Option(False, "--isolate-env", help="Run probes without the knobs (VT_* or the suite's "
                              "knob_prefixes) set in your shell (default: [suite] isolate_env).")


def unmatched_knob_prefixes(settings: SuiteSettings, root: Path) -> tuple[list[str], list[str]]:
    """The knob prefixes of the suite that no environment read in the engine's source starts with,
    and the folders scanned (``[suite] source_tree``, else the ``pythonpath`` roots; none: nothing to
    say). Such a prefix names no knob, so the knobs it was meant for reach probes unseen."""
    folders = [settings.source_tree] if settings.source_tree else list(settings.pythonpath)
    folders = [f for f in folders if (root / f).is_dir()]
    prefixes = [p for p in settings.knob_prefixes if p]
    if not folders or not prefixes:
        return [], folders
    try:
        files = discover(root, folders, (), ())
        names = {read.name for scan in scan_all(files, (), 1) for read in scan.reads if read.name}
    except EnvdocError:
        return [], folders
    return [p for p in prefixes if not any(name.startswith(p) for name in names)], folders


def config_error(error: SuiteError) -> typer.Exit:
    problem("configuration error", str(error))
    return typer.Exit(ExitCode.USAGE)


@app.command()
def check(
    suite: Path = SUITE_OPTION,
    root: Path = ROOT_OPTION,
    gate: list[str] = typer.Option(None, "--gate", "-g", help="Only this gate (repeatable)."),
    keyword: str = typer.Option(None, "-k", help="Select gates whose name/kind/tier match EXPR (and/or/not)."),
    jobs: int = typer.Option(None, "-j", "--jobs", min=1, help="Probe runs in parallel (default: cores)."),
    json_path: str = typer.Option(None, "--json", metavar="PATH", help="Write the JSON report to PATH ('-' = stdout)."),
    junit: Path = typer.Option(None, "--junit", help="Write a JUnit XML report to PATH."),
    github: bool = typer.Option(False, "--github", help="GitHub Actions: ::error annotations per failing gate and a job summary."),
    isolate_env: bool = ISOLATE_OPTION,
    wait_quiet: float = typer.Option(0.0, "--wait-quiet", min=0, metavar="SECONDS", help="Perf gates: wait up "
                                     "to SECONDS for a quiet host before each leg (default: a noisy host is an error)."),
    executor: str = EXECUTOR_OPTION,
    scheduler: str = SCHEDULER_OPTION,
    resources: list[str] = RESOURCES_OPTION,
    fallback: str = FALLBACK_OPTION,
) -> int:
    """Run the gates; exit 0 green, 1 red, 2 bad suite, 3 a gate could not run, 5 nothing selected."""
    try:
        loaded = load_suite(suite)
        if root is not None and not root.is_dir():
            raise SuiteError(f"--root {root}: no such directory")
        cluster = executor_settings(executor, scheduler, resources, loaded.root, fallback)
        unmatched, scanned = unmatched_knob_prefixes(loaded.settings, root or loaded.root)
        for prefix in unmatched:
            problem("warning", f"knob prefix {prefix!r} ([suite] knob_prefixes) matches no environment variable read "
                    f"under {', '.join(scanned)}: knobs under another name reach the probes unreported; fix "
                    "knob_prefixes (or [envdoc] prefix) to the prefix the engine's code reads", style="bold yellow")
        with live_progress(console, progress_wanted(json_to_stdout=json_path == "-")) as progress:
            report = run_check(loaded, root=root, select=gate or None, keyword=keyword, jobs=jobs,
                               isolate_env=isolate_env or None, progress=progress,
                               extra_env={WAIT_QUIET_ENV: f"{wait_quiet:g}"} if wait_quiet else None,
                               executor=cluster)
    except ExecutorError as error:
        problem("vtgate", str(error))
        raise typer.Exit(int(error.exit_code)) from None
    except KeyboardInterrupt:
        raise Interrupted("probe runs stopped; no report written") from None
    except SuiteError as error:
        if json_path:  # readers (vtbisect) get the reason in the same place as a report
            write_json(json_path, {"schema": 1, "ok": False, "exit_code": int(ExitCode.USAGE), "error": str(error),
                                   "error_kind": "config", "gates": [], "seconds": 0.0})
        raise config_error(error) from None
    if not report.gates:
        say("nothing to check: no gate selected" + (f" by -k {keyword!r}" if keyword else ""))
    else:
        render_table(report, console)
    if json_path:
        write_json_report(report, json_path)
    if junit:
        write_junit(report, junit)
    if github:
        write_github(report, to_stdout=json_path != "-")
    return int(report.exit_code)
