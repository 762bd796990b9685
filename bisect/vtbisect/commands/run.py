"""``vtbisect run GOOD..BAD``: find every first bad commit in isolated worktrees.

Command mode: ``vtbisect run GOOD..BAD -- CMD ARGS...`` (git bisect run's exit codes; limit to
paths with ``--path``). Gate mode: ``--gate NAME`` (repeatable) or ``--all-red``, judged by
``vtgate check`` against a fixed oracle; trailing ``-- PATHSPEC`` limits the candidates.

Exit codes (docs/contracts.md#exit-codes): 0 no regression culprit (only deliberate reds, or --no-fail-on-culprit),
1 a regression culprit found, 2 usage or configuration (bad range, GOOD/BAD disagreeing, missing
command, unknown gate), 3 internal error, a probe or command that could not run, or an abort
(exit code outside 0..127, stale import), 5 nothing to bisect (empty range, nothing red at BAD),
130 interrupted."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import typer
from filelock import FileLock, Timeout
from vtgate.cli.commands.executor_options import (
    EXECUTOR_OPTION,
    FALLBACK_OPTION,
    OPTION_NAMES,
    RESOURCES_OPTION,
    SCHEDULER_OPTION,
    executor_settings,
)
from vtgate.cli.exits import Interrupted
from vtgate.exitcodes import ExitCode
from vtgate.output import console, problem, say, write_json
from vtgate.run.executor import ExecutorError, ExecutorSettings, SchedulerLost

from vtbisect.app import app
from vtbisect.build import BuildConfigError, Builder, BuildingRunner, bisect_table, shell_safe, spec_from
from vtbisect.cache import Knobs, VerdictCache, default_cache_dir, thread_env, verdict_env
from vtbisect.distributed import judging, stop_remote
from vtbisect.driver import Bisection
from vtbisect.judgecmd import CommandError, resolve_command, resolve_gate_leaks
from vtbisect.judges import CommandRunner, GateRunner, JudgeAbort, Runner, allow_children, kill_children
from vtbisect.records import BisectError, Options, Outcome
from vtbisect.report import (
    ProgressHandler,
    build_summary,
    cut_points_record,
    outcome_record,
    summary_lines,
    write_evidence,
)
from vtbisect.revisions import (
    GitError,
    Range,
    RangeError,
    git_common_dir,
    has_local_changes,
    pinned_argv,
    repository_root,
    resolve_range,
    two_arguments_hint,
)
from vtbisect.session import terminate_as_interrupt, worktree_session


def fail(message: str, code: int) -> typer.Exit:
    problem("vtbisect", message)
    return typer.Exit(int(code))


def _dirty_note(repo: Path) -> None:
    if has_local_changes(repo):
        say(("your working tree has uncommitted changes: fine, vtbisect never touches it "
             "(every step runs in its own worktree)", "dim"))


def _cache_dir(repo: Path, override: Path | None) -> Path:
    cache_dir = override or default_cache_dir(git_common_dir(repo))
    cache_dir.mkdir(parents=True, exist_ok=True)
    return cache_dir.resolve()


def _build_runner(
    repo: Path, cache_dir: Path, rest: list[str], gates: list[str], all_red: bool, suite: str | None,
    suite_from: str | None, timeout: float | None, env: dict[str, str],
) -> tuple[Runner, list[str], bool]:
    """The runner, the pathspec, and whether this is gate mode."""
    if not gates and not all_red:
        if not rest:
            raise fail("nothing to run: give -- CMD ARGS... (command mode) or --gate NAME / --all-red", ExitCode.USAGE)
        return CommandRunner(tuple(rest), env, timeout), [], False  # resolved (plan) once the range is known
    if gates and all_red:
        raise fail("--gate and --all-red exclude each other", ExitCode.USAGE)
    from vtbisect.oracle import OracleError, prepare_oracle  # gate mode only: loads vtgate's suite machinery

    try:
        oracle = prepare_oracle(repo, cache_dir, suite=suite, suite_from=suite_from)
    except OracleError as error:
        raise fail(str(error), ExitCode.USAGE) from None
    unknown = [g for g in gates if g not in oracle.gates]
    if unknown:
        raise fail(f"unknown gate {', '.join(unknown)} in {oracle.suite.name}; the suite has: "
                   f"{', '.join(oracle.gates)}", ExitCode.USAGE)
    selected = tuple(gates) if gates else oracle.gates
    if not selected:
        raise fail(f"the suite {oracle.suite} declares no gates", ExitCode.NOTHING)
    runner = GateRunner(oracle.suite, selected, env, oracle.digest, timeout, deliberate=oracle.deliberate,
                        oracle_source="the checkout" if oracle.source == "checkout" else f"commit {oracle.source}",
                        knobs=Knobs(oracle.knob_prefixes, oracle.named_knobs), artifacts=oracle.artifacts,
                        artifacts_root=oracle.artifacts_root, perf_gates=perf_gates(oracle.suite, selected))
    return runner, list(rest), True


def perf_gates(suite: Path, selected: tuple[str, ...]) -> frozenset[str]:
    """The selected gates of kind perf: each candidate is timed against GOOD's commit (docs/perf.md)."""
    from vtgate.suite.load import load_suite

    return frozenset(spec.name for spec in load_suite(suite).gates if spec.kind == "perf" and spec.name in selected)


CLUSTER_OPTIONS = OPTION_NAMES  # where judgements ran, not what they judged


def reproduce_argv(argv: list[str]) -> list[str]:
    """vtbisect's own arguments for re-judging the same range: output paths dropped (a re-run must not
    overwrite the record it checks), the executor dropped (the record re-runs on this machine) and
    ``--no-cache`` added (every step judged afresh)."""
    end = argv.index("--") if "--" in argv else len(argv)
    own, tail = argv[:end], argv[end:]
    kept: list[str] = []
    skip = False
    for arg in own:
        if skip:
            skip = False
            continue
        if arg in ("--json", "--evidence", *CLUSTER_OPTIONS):
            skip = True
            continue
        if arg.startswith(("--json=", "--evidence=", *(f"{o}=" for o in CLUSTER_OPTIONS))) or arg == "--no-cache":
            continue
        kept.append(arg)
    if kept and kept[0] == "run":
        kept.insert(1, "--no-cache")
    return kept + tail


def _recipe(argv: list[str], runner: Runner, env: dict[str, str], cache_dir: Path, repo: Path,
            rng: Range) -> dict[str, Any]:
    """How to reproduce the run; ``argv`` already names the range by full commit ids (``pinned_argv``)."""
    gate = runner if isinstance(runner, GateRunner) else None
    plan = getattr(runner, "plan", None)
    subdir = plan.subdir if plan is not None else ""
    identity = json.loads(runner.oracle_digest()).get("identity", {})
    return {
        "range": rng.pinned_spec,
        "range_as_given": rng.spec,
        "mode": "gate" if gate is not None else "command",
        "suite": str(gate.suite) if gate is not None else None,
        "digest": gate.digest if gate is not None else None,
        "oracle_source": gate.oracle_source if gate is not None else None,
        "argv": runner.recipe(),
        "cwd": "<worktree of the candidate>" + (f"/{subdir}" if subdir else ""),
        "subdir": subdir,
        "env": verdict_env(env, runner.knobs),
        "threads": thread_env(env),
        "judge": identity,
        "judge_files": {path: identity.get("files", {}).get(path) for path in (plan.judge_files if plan else ())},
        "reproduce": "cd " + shlex.quote(str(repo / subdir if subdir else repo)) + " && "
                     + shlex.join(["vtbisect", *reproduce_argv(argv)]),
        "cache_dir": str(cache_dir),
        "gates": list(runner.gates),
        "repo": str(repo),
    }


@app.command(
    "run",
    help="Find the first bad commit(s) in GOOD..BAD. Command mode: -- CMD ARGS (exit 0 good, 125 skip, "
    "1-127 bad); gate mode: --gate NAME / --all-red (vtgate check), -- PATHSPEC. Exit 1 when a "
    "regression culprit is found, 0 when none (deliberate reds only), 2 usage, 3 abort, 5 nothing to bisect.",
)
def run_command(
    range_spec: str = typer.Argument(..., metavar="GOOD..BAD", help="The bracket: GOOD is green, BAD red."),
    rest: list[str] = typer.Argument(None, metavar="[-- CMD ARGS... | -- PATHSPEC...]"),
    gate: list[str] = typer.Option([], "--gate", "-g", help="Gate mode: bisect this gate (repeatable)."),
    all_red: bool = typer.Option(False, "--all-red", help="Bisect every gate red at BAD and green at GOOD."),
    suite: str = typer.Option(None, "--suite", help="Suite TOML (default: vtgate.toml or [tool.vtgate] in the checkout's pyproject.toml)."),
    suite_from: str = typer.Option(None, "--suite-from", help="Take the suite and goldens from this revision."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, max=64, help="Candidates judged concurrently per round."),
    repeat: int = typer.Option(1, "--repeat", min=1, help="Judge each candidate up to N times; majority wins."),
    confirm: int = typer.Option(0, "--confirm", min=0, help="Re-judge each culprit and its parent N times."),
    recheck: bool = typer.Option(True, "--recheck/--no-recheck",
                                 help="Judge a deciding verdict again before believing it (GOOD not green, BAD "
                                      "not red, the culprit red; default). --no-recheck judges once, as git does."),
    all_culprits: bool = typer.Option(False, "--all-culprits", help="Find culprits masked by earlier ones."),
    first_parent: bool = typer.Option(False, "--first-parent", help="Stay on the mainline; a merge culprit is final."),
    path: list[str] = typer.Option([], "--path", help="Only commits touching PATH (repeatable)."),
    json_out: str = typer.Option(None, "--json", metavar="PATH", help="Write the JSON record to PATH ('-' = stdout)."),
    evidence: Path = typer.Option(None, "--evidence", help="Write README-bisect.md, logs, JSON, bisect log here."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the verdict cache."),
    cache_dir: Path = typer.Option(None, "--cache-dir", help="Cache folder (default $VT_BISECT_CACHE_DIR, else <git-common-dir>/vtbisect)."),
    timeout: float = typer.Option(None, "--timeout", help="Seconds per judgement; a timeout is untestable."),
    fail_on_culprit: bool = typer.Option(True, "--fail-on-culprit/--no-fail-on-culprit",
                                         help="Exit 1 when a regression culprit is found (default)."),
    repo_dir: Path = typer.Option(Path("."), "--repo", help="The repository (default: current directory)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress lines."),
    executor: str = EXECUTOR_OPTION,
    scheduler: str = SCHEDULER_OPTION,
    resources: list[str] = RESOURCES_OPTION,
    fallback: str = FALLBACK_OPTION,
    setup: str = typer.Option(None, "--setup", metavar="CMD",
                              help="Run CMD (split once into arguments; {python} {worktree}) at each worktree's root "
                                   "before its judge: the build step. [bisect] setup in the suite."),
    setup_timeout: float = typer.Option(None, "--setup-timeout", help="Seconds the setup may take; a timeout is a "
                                                                         "setup failure."),
    setup_failure: str = typer.Option(None, "--setup-failure", metavar="skip|fatal",
                                      help="A failed setup makes the candidate untestable (skip, default) or stops "
                                           "the run (fatal, exit 3)."),
    build_input: list[str] = typer.Option([], "--build-input", metavar="GLOB",
                                          help="A file the build reads (repeatable): commits whose inputs hash the "
                                               "same reuse one build."),
    build_output: list[str] = typer.Option([], "--build-output", metavar="PATH",
                                           help="What the build makes, kept in the build cache (repeatable)."),
    no_build_cache: bool = typer.Option(False, "--no-build-cache", help="Run the setup at every candidate."),
    artifact: str = typer.Option(None, "--artifact", metavar="TEMPLATE",
                                 help="A prebuilt artifact per commit ({commit}, {short}): a local path or URL, "
                                      "installed instead of building."),
    artifact_checksum: str = typer.Option(None, "--artifact-checksum", metavar="TEMPLATE",
                                          help="A file holding the artifact's sha256 ({commit}, {short})."),
    artifact_install: str = typer.Option(None, "--artifact-install", metavar="CMD",
                                         help="Install the artifact with CMD ({artifact} {python} {worktree}) instead "
                                              "of copying it into the worktree."),
    artifact_missing: str = typer.Option(None, "--artifact-missing", metavar="build|skip",
                                         help="No artifact for a commit: build it (default with --setup) or skip it."),
    lock: str = typer.Option(None, "--lock", metavar="FILE",
                             help="Each commit's environment from its lock file FILE (uv venv + uv pip sync), "
                                  "cached by its content; the judge gets {python}."),
    compiler_cache: str = typer.Option(None, "--compiler-cache", metavar="auto|off",
                                       help="Route C/C++ compilers through ccache or sccache when installed (auto)."),
    cut_points: str = typer.Option(None, "--cut-points", metavar="build-aware|plain",
                                   help="Where to cut: build-aware (default with a build cache) moves a cut within "
                                        "35:65 of the range to a commit whose build is done; plain: git's midpoint."),
) -> int:
    argv = sys.argv[1:]
    rest = list(rest or [])
    env = dict(os.environ)
    try:
        repo = repository_root(repo_dir)
        _two_arguments_check(repo, range_spec, rest, argv)
        cache = _cache_dir(repo, cache_dir)
        runner, pathspec, _gate_mode = _build_runner(repo, cache, rest, gate, all_red, suite, suite_from, timeout, env)
        rng = resolve_range(repo, range_spec, first_parent=first_parent, pathspec=[*path, *pathspec])
        pinned = pinned_argv(argv, rng, suite_from)  # now: the branches named may move on later
        if isinstance(runner, CommandRunner):
            runner.plan = resolve_command(runner.argv, repo, Path.cwd(), env, (rng.good.sha, rng.bad.sha))
        elif isinstance(runner, GateRunner):
            import vtgate

            import vtbisect

            runner.perf_reference = rng.good.sha  # perf gates: each candidate's speed as a ratio to GOOD's
            runner.leaks = resolve_gate_leaks(repo, env, (rng.good.sha, rng.bad.sha), runner.python,
                                              [Path(vtgate.__file__).parent.parent, Path(vtbisect.__file__).parent.parent])
        settings = executor_settings(executor, scheduler, resources, repo, fallback)
        config, where = bisect_table(repo, suite)
        spec = spec_from(config, where or "the suite", setup=setup, setup_timeout=setup_timeout,
                         setup_failure=setup_failure, build_inputs=build_input, build_outputs=build_output,
                         artifact=artifact, artifact_checksum=artifact_checksum, artifact_install=artifact_install,
                         artifact_missing=artifact_missing, lock=lock, compiler_cache=compiler_cache,
                         use_cache=not no_build_cache)
        work_cache, safe_note = shell_safe(cache) if spec.active else (cache, None)
        builder = Builder(spec, repo, work_cache, env) if spec.active else None
        cut_rule = _cut_rule(cut_points, builder)
        if builder is not None and settings.kind != "local":
            raise BuildConfigError("a build step (--setup, --artifact, --lock) runs on this machine only; fix: drop "
                                   "--executor dask, or build inside the judge on the workers")
    except (RangeError, BisectError, CommandError, ExecutorError, BuildConfigError) as error:
        raise fail(str(error), error.exit_code) from None
    except JudgeAbort as error:
        raise fail(str(error), error.exit_code) from None
    except GitError as error:
        raise fail(f"git failed: {error}", ExitCode.INTERNAL) from None
    _dirty_note(repo)
    told = runner.plan if isinstance(runner, CommandRunner) else runner.leaks if isinstance(runner, GateRunner) else None
    for note in [*(told.notes if told else ()), *([safe_note] if safe_note else [])]:
        say(("note:", "yellow"), f" {note}")
    options = Options(jobs=jobs, repeat=repeat, confirm=confirm, all_culprits=all_culprits,
                      first_parent=first_parent, all_red=all_red, recheck=recheck)
    say(f"bisecting {len(rng.candidates)} candidates in {range_spec} "
        f"({rng.good.sha[:10]}..{rng.bad.sha[:10]}), -j {jobs}"
        + (f", repeat {repeat}" if repeat > 1 else "") + (", cache off" if no_cache else ""))
    if settings.kind == "dask":
        say(f"executor dask: {settings.scheduler or f'a LocalCluster of {jobs} worker processes'}"
            + (", resources " + ",".join(f"{k}={v:g}" for k, v in settings.resources.items())
               if settings.resources else ""))
    judge: Runner = runner if builder is None else BuildingRunner(runner, builder)
    outcome = _bisect(repo, work_cache, rng, judge, options, env, no_cache, quiet, settings,
                      builder if cut_rule == "build-aware" else None)
    recipe = _recipe(pinned, runner, env, cache, repo, rng)
    build = builder.record() if builder is not None else None
    if build is not None:
        recipe["build_step"] = spec.to_record()
        build["cut_points"] = cut_points_record(outcome)
    _report(outcome, recipe, json_out, evidence, build)
    if not fail_on_culprit:
        return ExitCode.OK
    return outcome.exit_code


def _two_arguments_check(repo: Path, range_spec: str, rest: list[str], argv: list[str]) -> None:
    """``vtbisect run GOOD BAD -- ...``: the range typed as two arguments; say which range was meant."""
    if ".." in range_spec or not rest or range_spec not in argv:
        return
    after = argv.index(range_spec) + 1
    if after >= len(argv) or argv[after] == "--" or argv[after] != rest[0]:
        return
    meant = two_arguments_hint(repo, range_spec, rest[0])
    if meant is not None:
        raise RangeError(f"the range is one argument, GOOD..BAD: got {range_spec!r} and {rest[0]!r} as two; did you "
                         f"mean {meant}? e.g. vtbisect run {meant} -- CMD ARGS...")


def _cut_rule(given: str | None, builder: Builder | None) -> str:
    """``--cut-points``: build-aware by default when a build cache knows each commit's build inputs."""
    cached = builder is not None and builder.spec.cached
    if given is None:
        return "build-aware" if cached else "plain"
    if given not in ("build-aware", "plain"):
        raise BuildConfigError(f"--cut-points {given!r}: use build-aware or plain")
    if given == "build-aware" and not cached:
        raise BuildConfigError("--cut-points build-aware needs the build cache, which knows what each commit's build "
                               "reads; fix: give --setup CMD with --build-input GLOB and --build-output PATH")
    return given


def _bisect(repo: Path, cache: Path, rng: Range, runner: Runner, options: Options, env: dict[str, str],
            no_cache: bool, quiet: bool, settings: ExecutorSettings | None = None,
            cut_states: Builder | None = None) -> Outcome:
    handler = ProgressHandler(console, quiet)
    tips = (rng.good.sha, rng.bad.sha)
    try:
        with terminate_as_interrupt(), worktree_session(repo, cache, options.jobs) as local_pool, judging(
                settings or ExecutorSettings(), local_pool, runner, env, repo, tips, cache, options.jobs,
                handler.info) as (pool, judge):
            bisection = Bisection(rng, judge, pool, VerdictCache(cache, enabled=not no_cache), options, env, handler,
                                  cut_states)
            try:
                with _run_lock(cache):
                    return bisection.run()
            finally:
                kill_children()
                stop_remote(pool)
                bisection.close()
    except KeyboardInterrupt:
        left = f", {handler.left} candidates left" if handler.left is not None else ""
        raise Interrupted(f"{handler.judged} steps judged{left}; worktrees removed and pruned, your checkout "
                          "untouched; re-run the same command to resume from the cache") from None
    except BisectError as error:
        raise fail(str(error), error.exit_code) from None
    except JudgeAbort as error:
        raise fail(f"aborted: {error}", error.exit_code) from None
    except GitError as error:
        raise fail(f"git failed: {error}", ExitCode.INTERNAL) from None
    except SchedulerLost as error:
        left = f", {handler.left} candidates left" if handler.left is not None else ""
        kept = "the cache keeps every verdict that finished" if not no_cache else "the cache is off (--no-cache)"
        if settings is not None and settings.fallback == "local":
            say(("note:", "yellow"), f" {error}. Judged on the cluster: {handler.judged} steps{left}; "
                f"{kept}; the bisection goes on on this machine (--fallback local)")
            allow_children()
            return _bisect(repo, cache, rng, runner, options, env, no_cache, quiet, ExecutorSettings(), cut_states)
        raise fail(f"{error}. Judged so far: {handler.judged} steps{left}; {kept}, worktrees removed; re-run the "
                   "same command to resume", error.exit_code) from None
    except ExecutorError as error:
        raise fail(str(error), error.exit_code) from None


def _run_lock(cache: Path) -> FileLock:
    """One bisection at a time per cache folder; a second run waits (at most VT_BISECT_LOCK_TIMEOUT
    seconds, default an hour), then reuses the first's cache."""
    raw = os.environ.get("VT_BISECT_LOCK_TIMEOUT", "3600")
    try:
        limit = float(raw)
    except ValueError:
        limit = -1.0
    if not limit >= 0:  # also NaN
        raise BisectError(f"VT_BISECT_LOCK_TIMEOUT={raw!r} is not a number of seconds >= 0: set it to e.g. 600",
                          ExitCode.USAGE)
    lock = FileLock(str(cache / "run.lock"))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        say(f"waiting for another vtbisect run on this repository (lock {cache / 'run.lock'}), at most {limit:g} s")
        try:
            lock.acquire(timeout=limit)
        except Timeout:
            raise BisectError(
                f"another vtbisect run on this repository held {cache / 'run.lock'} for more than {limit:g} s "
                "(VT_BISECT_LOCK_TIMEOUT): wait for it to finish, or give this run its own --cache-dir",
                ExitCode.INTERNAL) from None
    return lock


def _report(outcome: Outcome, recipe: dict[str, Any], json_out: str | None, evidence: Path | None,
            build: dict[str, Any] | None = None) -> None:
    for line in summary_lines(outcome):
        say(line)
    if build is not None:
        say(build_summary(build, outcome.judgements))
    for note in outcome.notes:
        say(("note:", "yellow"), f" {note}")
    for gate, why in outcome.dropped.items():
        say((f"not bisected: {gate} ({why})", "dim"))
    if json_out:
        write_json(json_out, outcome_record(outcome, recipe, build))
    if evidence:
        write_evidence(evidence, outcome, recipe, build)
        say(f"evidence written to {evidence}/README-bisect.md")
