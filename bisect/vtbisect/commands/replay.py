"""``vtbisect replay LOG``: re-judge each culprit of a recorded bisection and its parent, fresh (no
cache), in worktrees, and say whether the record still holds: the parent green and the culprit red
for the culprit's gates (with the same earlier culprits reverted for a masked one).

Exit 0 when every culprit holds, 1 when one does not, 2 when the log or its runner cannot be used."""

from __future__ import annotations

import os
from pathlib import Path

import typer
from vtgate.cli.exits import Interrupted
from vtgate.exitcodes import ExitCode
from vtgate.output import say

from vtbisect.app import app
from vtbisect.build import BuildConfigError, Builder, BuildingRunner, BuildSpec
from vtbisect.cache import default_cache_dir
from vtbisect.commands.run import fail
from vtbisect.judgecmd import CommandError, resolve_command
from vtbisect.judges import CommandRunner, GateRunner, JudgeAbort, Runner, kill_children
from vtbisect.report import parse_bisect_log
from vtbisect.revisions import GitError, RangeError, git_common_dir, repository_root
from vtbisect.search import Verdict, majority
from vtbisect.session import terminate_as_interrupt, worktree_session


def runner_from_recipe(recipe: dict, env: dict[str, str], repo: Path, revisions: tuple[str, str]) -> Runner:
    if recipe.get("mode") == "gate":
        suite = Path(recipe["suite"])
        if not suite.is_file():
            raise JudgeAbort(f"the recorded oracle {suite} is gone (cache cleared?): re-run the bisection",
                             ExitCode.USAGE)
        return GateRunner(suite, tuple(recipe["gates"]), env, recipe.get("digest", ""))
    runner = CommandRunner(tuple(recipe["argv"]), env)
    # Resolved as the recorded run was: from the same subdirectory of the repository.
    subdir = recipe.get("subdir") or ""
    try:
        runner.plan = resolve_command(runner.argv, repo, repo / subdir, env, revisions)
    except CommandError as error:
        raise JudgeAbort(str(error), error.exit_code) from None
    for note in runner.plan.notes:
        say(("note:", "yellow"), f" {note}")
    return runner


def judge(runner: Runner, pool, commit: str, reverts: tuple[str, ...], repeat: int) -> dict[str, Verdict]:  # noqa: ANN001
    votes: dict[str, list[Verdict]] = {g: [] for g in runner.gates}
    settled: dict[str, Verdict | None] = {g: None for g in runner.gates}
    with pool.lease() as path:
        while any(v is None for v in settled.values()):
            prepared = pool.prepare(path, commit, reverts)
            judgement = runner.judge(prepared)
            for gate in runner.gates:
                if settled[gate] is None:
                    votes[gate].append(judgement.verdicts.get(gate, "skip"))
                    settled[gate] = majority(votes[gate], repeat)
    return {g: v or "skip" for g, v in settled.items()}


@app.command("replay", help="Re-judge each culprit in a vtbisect bisect log and its parent; exit 0 if the record holds.")
def replay_command(
    log: Path = typer.Argument(..., exists=True, dir_okay=False, help="bisect-log.txt from --evidence DIR."),
    repeat: int = typer.Option(1, "--repeat", min=1, help="Judge each commit up to N times; majority wins."),
    repo_dir: Path = typer.Option(None, "--repo", help="The repository (default: the one recorded)."),
) -> int:
    try:
        record = parse_bisect_log(log.read_text(encoding="utf-8"))
    except (ValueError, KeyError) as error:
        raise fail(f"{log}: {error}", ExitCode.USAGE) from None
    try:
        repo = repository_root(repo_dir or Path(record.recipe.get("repo", ".")))
        cache = Path(record.recipe.get("cache_dir") or default_cache_dir(git_common_dir(repo)))
        runner = runner_from_recipe(record.recipe, dict(os.environ), repo, (record.good, record.bad))
        if record.recipe.get("build_step"):  # build each commit as the recorded run did (vtbisect.build)
            spec = BuildSpec.from_record(record.recipe["build_step"])
            spec.check()
            runner = BuildingRunner(runner, Builder(spec, repo, cache, dict(os.environ)))
    except (RangeError, JudgeAbort, BuildConfigError) as error:
        raise fail(str(error), getattr(error, "exit_code", ExitCode.USAGE)) from None
    if not record.culprits:
        say("the record names no culprit: nothing to replay")
        return ExitCode.NOTHING
    holds = True
    try:
        with terminate_as_interrupt(), worktree_session(repo, cache, 1) as pool:
            try:
                for culprit in record.culprits:
                    holds &= _replay_one(runner, pool, culprit, repeat)
            finally:
                kill_children()
    except KeyboardInterrupt:
        raise Interrupted("worktrees removed and pruned, your checkout untouched") from None
    except JudgeAbort as error:
        raise fail(f"aborted: {error}", error.exit_code) from None
    except GitError as error:
        raise fail(f"git failed: {error}", ExitCode.INTERNAL) from None
    say("the record holds" if holds else ("the record does not hold", "bold red"))
    return ExitCode.OK if holds else ExitCode.RED


def _replay_one(runner: Runner, pool, culprit: dict, repeat: int) -> bool:  # noqa: ANN001
    reverts = tuple(culprit.get("reverts", []))
    gates = [g for g in culprit["gates"] if g in runner.gates]
    parent = judge(runner, pool, culprit["parent"], reverts, repeat)
    red = judge(runner, pool, culprit["commit"], reverts, repeat)
    ok = all(parent.get(g) == "good" for g in gates) and all(red.get(g) == "bad" for g in gates)
    status = ("holds", "green") if ok else ("does not hold", "red")
    extra = f" (with {', '.join(r[:10] for r in reverts)} reverted)" if reverts else ""
    members = culprit.get("candidates") or [culprit["commit"]]
    if len(members) > 1:
        # A set: only its bounds are re-judged, so only the bracket around the set can hold.
        what = (f"the first bad commit is one of {len(members)} ({' '.join(m[:10] for m in members)}){extra}: "
                f"parent {culprit['parent'][:10]} ")
        last = "; last member "
    else:
        what = f"{culprit['commit'][:10]} {culprit['subject']}{extra}: parent {culprit['parent'][:10]} "
        last = "; culprit "
    say(what + f"{', '.join(f'{g}={parent.get(g)}' for g in gates)}{last}"
        f"{', '.join(f'{g}={red.get(g)}' for g in gates)} -> ", status)
    return ok
