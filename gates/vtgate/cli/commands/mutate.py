"""``vtgate mutate``: run the suite's mutations and the built-in negative controls, print the kill
matrix, and exit 0 (every expectation met, no vacuous pin), 1, 2 (bad suite or patch), 3 (a run
errored), 5 (no gate selected)."""

from __future__ import annotations

import signal
from pathlib import Path
from types import FrameType

import typer

from vtgate.cli.app import app
from vtgate.cli.commands.check import ISOLATE_OPTION, ROOT_OPTION, SUITE_OPTION
from vtgate.cli.commands.executor_options import (
    EXECUTOR_OPTION,
    FALLBACK_OPTION,
    RESOURCES_OPTION,
    SCHEDULER_OPTION,
    executor_settings,
)
from vtgate.cli.exits import Interrupted
from vtgate.cli.progress import live_progress, progress_wanted
from vtgate.errors import SuiteError
from vtgate.exitcodes import ExitCode
from vtgate.mutate import ArmsError, PatchError, run_mutate
from vtgate.mutate.codereport import render_code, write_code_json
from vtgate.mutate.coderun import CodeReport, run_code_mutants
from vtgate.mutate.ledgerfile import LedgerWriteError, confirm_ledger
from vtgate.mutate.report import render, write_json_report
from vtgate.output import console, problem, say
from vtgate.run.executor import ExecutorError
from vtgate.suite.load import load_suite


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt  # SIGTERM cleans up like Ctrl-C: copies removed, probes killed


def _confirm_ledger(report: CodeReport) -> bool:
    """``--confirm-ledger``: this run's versions on each ledger entry it verified (nothing after a lost
    scheduler: that run verified nothing yet). False when the ledger could not be written (said)."""
    path = Path(report.ledger)
    if report.lost:
        say(f"ledger: {path} left as it was (the run did not finish)")
        return True
    verified = {key for v in report.verdicts if v.ledger is not None and v.ledger.verdict == "verified"
                for key in (v.mutant.ledger_key, v.mutant.digest)}
    try:
        stamped = confirm_ledger(path, verified, report.versions) if verified and path.is_file() else []
    except LedgerWriteError as error:
        problem("vtgate", f"{error}; fix: make the ledger readable and writable (or its layout one key per "
                "line) and re-run: the verdicts are cached")
        return False
    shown = ", ".join(f"{name} {version}" for name, version in sorted(report.versions.items()))
    say(f"ledger: confirmed_under ({shown}) recorded on {len(stamped)} entr{'y' if len(stamped) == 1 else 'ies'} "
        f"this run verified, in {path}")
    return True


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
    isolate_env: bool = ISOLATE_OPTION,
    code: bool = typer.Option(False, "--code", help="Generated code mutants of the engine's source ([mutate.code]) "
                              "instead of the declared mutations: a mutation score and the survivors."),
    budget: int = typer.Option(None, "--budget", min=1, help="With --code: a random sample of N mutants."),
    seed: int = typer.Option(0, "--seed", help="With --code: the sample's seed."),
    operator: list[str] = typer.Option(None, "--operator", help="With --code: only this operator (repeatable)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="With --code: judge every mutant afresh."),
    min_score: float = typer.Option(1.0, "--min-score", min=0.0, max=1.0,
                                    help="With --code: exit 0 when the mutation score is at least this (default 1.0: "
                                         "every non-equivalent mutant killed)."),
    equivalence: int = typer.Option(None, "--equivalence", min=1, metavar="N",
                                    help="With --code: test every possibly-equivalent mutant's function against the "
                                         "original on N recorded and random inputs; one that differs is a survivor. "
                                         "The ledger's entries are always tested (N inputs each, default 48)."),
    confirm_ledger: bool = typer.Option(False, "--confirm-ledger",
                                        help="With --code on the whole suite: record on each ledger entry this run "
                                             "verified the versions it was verified under (confirmed_under)."),
    use_shadow: bool = typer.Option(None, "--shadow/--no-shadow",  # None: not given (on with --code)
                                    help="With --code: check the ledger's entries in one shadow run (the reaching "
                                         "gates run once, each entry's mutated expression evaluated beside the "
                                         "original wherever the suite evaluates it) and judge by their own gates only "
                                         "those it cannot vouch for (docs/mutate.md, 'The shadow run')."),
    executor: str = EXECUTOR_OPTION,
    scheduler: str = SCHEDULER_OPTION,
    resources: list[str] = RESOURCES_OPTION,
    fallback: str = FALLBACK_OPTION,
) -> int:
    """Prove every pin can fail: the kill matrix of declared mutations and built-in controls."""
    # SIGTERM cleans up like Ctrl-C; under the CLI (vtgate.cli.exits) it is already handled (exit 143).
    previous = signal.getsignal(signal.SIGTERM)
    if previous in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, _terminate)
    try:
        loaded = load_suite(suite)
        if root is not None and not root.is_dir():
            raise SuiteError(f"--root {root}: no such directory")
        if not code and (budget is not None or operator or no_cache or min_score != 1.0 or equivalence
                         or confirm_ledger or use_shadow is not None):
            raise SuiteError("--budget, --operator, --min-score, --no-cache, --equivalence, --confirm-ledger and "
                             "--shadow/--no-shadow go with --code")
        if confirm_ledger and (gate or keyword):
            raise SuiteError("--confirm-ledger records that the whole suite verified an entry: drop -g/-k (a run on "
                             "some gates verifies less)")
        cluster = executor_settings(executor, scheduler, resources, loaded.root, fallback)
        if cluster.kind != "local" and not code:
            raise SuiteError("--executor dask judges generated code mutants (--code); the declared mutations and "
                             "controls run on this machine: drop --executor/--scheduler or add --code")
        if code:
            if mutation or no_auto:
                raise SuiteError("--code judges generated mutants: it takes no --mutation or --no-auto")
            wanted = progress_wanted(json_to_stdout=json_path == "-", quiet=quiet)
            with live_progress(console, wanted, "mutants") as progress:
                code_report = run_code_mutants(loaded, root=root, select=gate or None, keyword=keyword, jobs=jobs,
                                               budget=budget, seed=seed, min_score=min_score,
                                               operators=operator or None,
                                               use_cache=not no_cache, isolate_env=isolate_env or None,
                                               progress=progress, executor=cluster, equivalence=equivalence,
                                               use_shadow=use_shadow is not False, say=None if quiet else say)
            if not code_report.verdicts:
                say("nothing to mutate: no gate or no mutant selected")
            else:
                render_code(code_report, console)
            if code_report.lost:
                judged = len(code_report.verdicts) - code_report.count("error")
                problem("vtgate", f"{code_report.lost}. Judged so far: {judged} of {len(code_report.verdicts)} "
                        "mutants (the code-mutant cache keeps every verdict); the others are errors, not verdicts; "
                        "re-run the same command to resume from the cache")
            ledger_written = _confirm_ledger(code_report) if confirm_ledger else True
            if json_path:
                write_code_json(code_report, json_path)
            return int(code_report.exit_code) if ledger_written else int(ExitCode.USAGE)
        wanted = progress_wanted(json_to_stdout=json_path == "-", quiet=quiet)
        with live_progress(console, wanted) as progress:
            report = run_mutate(loaded, root=root, select=gate or None, keyword=keyword, only=mutation or None,
                                jobs=jobs, auto=not no_auto, isolate_env=isolate_env or None, progress=progress)
    except (SuiteError, PatchError) as error:
        problem("configuration error", str(error))
        return int(ExitCode.USAGE)
    except ExecutorError as error:
        problem("vtgate", str(error))
        return int(error.exit_code)
    except KeyboardInterrupt:
        raise Interrupted("probe runs stopped, temporary copies removed; your tree was not touched") from None
    except ArmsError as error:
        problem("error", str(error), style="bold magenta")
        return int(ExitCode.INTERNAL)
    finally:
        if previous in (signal.SIG_DFL, None):
            signal.signal(signal.SIGTERM, previous)
    if not report.gates:
        say("nothing to mutate: no gate selected" + (f" by -k {keyword!r}" if keyword else ""))
    else:
        render(report, console)
    if json_path:
        write_json_report(report, json_path)
    return int(report.exit_code)
