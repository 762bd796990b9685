"""The bisection: drive the pure search (``vtbisect.search``) with real judgements.

One ``Bisection`` owns a range, a runner, a worktree pool and the verdict cache. It

1. judges GOOD first (with ``-j`` >= 2 beside the first cut points), so a wrong GOOD costs one
   judgement; GOOD off BAD's first-parent line is replaced by the line's newest commit it contains.
   BAD is judged only when the search would name BAD itself (git bisect run never judges it; a
   culprit below BAD is proved by its own red verdict) -- or first, beside GOOD, with ``--all-red``,
   which needs BAD's verdicts to choose the gates;
2. runs the per-gate searches together, ``jobs`` candidates per round, one judgement serving every
   gate; ``--repeat N`` settles each judgement by adaptive majority and records disagreement as
   flakiness;
3. ``--confirm N`` re-judges each culprit and its parent up to N times; a verdict the fresh votes
   disprove by a lead of two is overridden and the search resumes from the corrected bracket;
4. opens up a culprit that is a merge (unless ``--first-parent``): what it brought in is bisected
   over the commit graph (``vtbisect.dag``, git's find_bisection), nested merges included;
5. with ``--all-culprits``, reverts each culprit at BAD; while the gate stays red, searches the
   commits after the culprit with the reverts applied, and records what each culprit masks.

Everything the user sees goes through a ``Handler`` (progress) and the returned ``Outcome``
(reports); nothing here prints."""

from __future__ import annotations

import concurrent.futures as futures
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from vtgate.exitcodes import ExitCode

from vtbisect.cache import VerdictCache, make_key
from vtbisect.dag import MultiGateDag
from vtbisect.judges import ARTIFACT_ERROR_KIND, COMMAND_GATE, Judgement, Runner, host_undecided
from vtbisect.records import (
    BisectError,
    Culprit,
    Evaluation,
    Handler,
    Options,
    Outcome,
    Point,
    SilentHandler,
    Step,
)
from vtbisect.revisions import (
    Commit,
    Range,
    commits_between,
    deliberate_gates,
    describe,
    describe_many,
    diffstat,
    merged_by,
    tree_of,
)
from vtbisect.search import (
    CutChoice,
    CutChooser,
    MultiGateSearch,
    SearchOutcome,
    Verdict,
    build_aware_cut,
    majority,
)
from vtbisect.worktrees import RevertConflict, WorktreePool

RECHECK_LIMIT = 5  # fresh judgements at most to settle one contested verdict


class CutStates(Protocol):
    """What build-aware cut points need of the build step (``vtbisect.build.Builder``)."""

    def state_of(self, commit: str) -> str | None: ...

    def is_built(self, state: str) -> bool: ...


class _BuiltStates:
    def __init__(self, states: CutStates) -> None:
        self.states = states

    def __contains__(self, state: object) -> bool:
        return isinstance(state, str) and self.states.is_built(state)


class Bisection:
    def __init__(
        self,
        rng: Range,
        runner: Runner,
        pool: WorktreePool,
        cache: VerdictCache,
        options: Options,
        env: Mapping[str, str],
        handler: Handler | None = None,
        cut_states: CutStates | None = None,
    ) -> None:
        self.rng = rng
        self.cut_states = cut_states  # build-aware cut points (one judgement per round, no reverts)
        self.cuts = 0
        self.cut_moves: list[dict[str, str]] = []
        self.runner = runner
        self.pool = pool
        self.cache = cache
        self.options = options
        self.env = env
        self.handler = handler or SilentHandler()
        self.steps: list[Step] = []
        self.rounds = 0
        self.notes: list[str] = []
        self.dropped: dict[str, str] = {}
        self._known: dict[tuple[str, tuple[str, ...], int, str], Step] = {}
        self._durations: list[float] = []
        self._prefetched: list[tuple[str, Step]] = []  # (commit, step) judged beside GOOD
        self._trees: dict[str, str] = {}
        self._overturned: dict[tuple[str, tuple[str, ...]], int] = {}  # confirmations that flipped a point
        self._settled: dict[tuple[str, tuple[str, ...]], dict[str, Verdict]] = {}  # verdicts a recheck settled
        self._rechecked_culprits: set[tuple[tuple[str, tuple[str, ...]], str]] = set()
        self._executor = futures.ThreadPoolExecutor(max_workers=max(1, options.jobs))

    # ---- judging -------------------------------------------------------------------------------

    def _tree(self, sha: str) -> str:
        if sha not in self._trees:
            self._trees[sha] = tree_of(self.rng.repo, sha)
        return self._trees[sha]

    def _judge_fresh(self, point: Point, repeat: int) -> Evaluation:
        """Prepare the worktree and judge until every gate's verdict is settled (adaptive majority)."""
        gates = self.runner.gates
        votes: dict[str, list[Verdict]] = {g: [] for g in gates}
        settled: dict[str, Verdict | None] = dict.fromkeys(gates)
        logs: list[str] = []
        details: dict[str, Any] = {}
        seconds, runs = 0.0, 0
        with self.pool.lease() as path:
            try:
                prepared = self.pool.prepare(path, point.commit.sha, point.reverts)
            except RevertConflict as conflict:
                return Evaluation(dict.fromkeys(gates, "skip"), {g: [] for g in gates}, str(conflict), 0.0, 0,
                                  {}, f"conflict:{conflict.commit}")
            while any(v is None for v in settled.values()):
                if runs:  # every repetition starts from a clean, verified worktree again
                    prepared = self.pool.prepare(path, point.commit.sha, point.reverts)
                judgement: Judgement = self.runner.judge(prepared)
                runs += 1
                seconds += judgement.seconds
                logs.append(f"# judgement {runs}\n{judgement.log}")
                details = judgement.details or details
                for gate in gates:
                    if settled[gate] is None:
                        votes[gate].append(judgement.verdicts.get(gate, "skip"))
                        settled[gate] = majority(votes[gate], repeat)
        final: dict[str, Verdict] = {g: v or "skip" for g, v in settled.items()}
        return Evaluation(final, votes, "\n".join(logs), seconds, runs, details, "")

    def _evaluate(self, point: Point, repeat: int, phase: str, purpose: str | None = None) -> Step:
        # A confirmation is a fresh judgement: never served by the search's own verdict of the commit
        # (nor a tie-break by the confirmation's).
        purpose = purpose or ("confirm" if phase == "confirm" else "judge")
        memo = (point.commit.sha, point.reverts, repeat, purpose)
        if memo in self._known:  # judged earlier in this run: reuse, run nothing
            return replace(self._known[memo], cached=True, judgements=0, seconds=0.0)
        tree = point.commit.tree or self._tree(point.commit.sha)
        key = make_key(tree, point.reverts, self.runner.oracle_digest(), self.env, repeat, purpose, self.runner.knobs)
        record = self.cache.get(key)
        if record is not None:
            evaluation = Evaluation(record["verdicts"], record["votes"], record.get("log", ""), 0.0, 0,
                                    record.get("details", {}), record.get("note", ""))
        else:
            evaluation = self._judge_fresh(point, repeat)
            if evaluation.runs:
                self._durations.append(evaluation.seconds / evaluation.runs)
            if not host_undecided(evaluation.details):
                self.cache.put(key, {"verdicts": evaluation.verdicts, "votes": evaluation.votes,
                                     "log": evaluation.log[-20000:], "details": evaluation.details,
                                     "note": evaluation.note, "commit": point.commit.sha})
        step = Step(
            number=0, phase=phase, commit=point.commit.sha, subject=point.commit.subject, reverts=point.reverts,
            verdicts=dict(evaluation.verdicts), votes={g: list(v) for g, v in evaluation.votes.items()},
            cached=record is not None, seconds=round(evaluation.seconds, 4), judgements=evaluation.runs,
            round=self.rounds, log=evaluation.log, details=evaluation.details, note=evaluation.note,
        )
        self._known[memo] = step
        return step

    def judge_round(self, points: Sequence[Point], phase: str, repeat: int | None = None,
                    phases: Sequence[str] | None = None, purposes: Sequence[str | None] | None = None) -> list[Step]:
        """Judge ``points`` concurrently (one round); steps come back in the order of ``points``.
        ``phases`` labels each point when a round mixes them (BAD and speculative cut points);
        ``purposes`` keeps fresh re-judgements apart from earlier ones (cache and memo keys)."""
        repeat = repeat or self.options.repeat
        labels = list(phases) if phases else [phase] * len(points)
        aims = list(purposes) if purposes else [None] * len(points)
        self.rounds += 1
        jobs = [self._executor.submit(self._evaluate, p, repeat, phase, aim) for p, aim in zip(points, aims, strict=True)]
        pending = set(jobs)
        while pending:
            _, pending = futures.wait(pending, timeout=0.2)
        results: list[Step] = []
        for job, label in zip(jobs, labels, strict=True):
            step = job.result()
            numbered = replace(step, number=len(self.steps) + 1, phase=label, round=self.rounds)
            self.steps.append(numbered)
            self.handler.step(numbered)
            results.append(numbered)
        if all(s.cached for s in results):
            self.rounds -= 1  # a round served entirely from the cache ran nothing
        return results

    def mean_seconds(self) -> float | None:
        return sum(self._durations) / len(self._durations) if self._durations else None

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

    # ---- the whole run -------------------------------------------------------------------------

    @property
    def graph_mode(self) -> bool:
        """Search the commit graph of GOOD..BAD (git's way) rather than BAD's first-parent line: when
        the line has merges and nothing needs the line (--first-parent, --all-culprits' reverts
        along it, a pathspec)."""
        return (not self.options.first_parent and not self.options.all_culprits and not self.rng.pathspec
                and any(len(c.parents) > 1 for c in self.rng.candidates))

    def _good_side_note(self) -> None:
        merge, good = self.rng.good_merged_by, self.rng.good
        if merge is None or self.rng.floor is None:
            return
        said = (f"GOOD {good.sha[:10]} is not on BAD's first-parent line: merge {merge.sha[:10]} ({merge.subject}) "
                "brought its side in")
        if self.graph_mode:
            self.notes.append(f"{said}; the search runs over the commit graph of GOOD..BAD, as git bisect does")
        else:
            floor = self.rng.floor
            self.notes.append(f"{said}; the search follows the first-parent line from {floor.sha[:10]} "
                              f"({floor.subject}), the newest commit of that line GOOD contains, judged in GOOD's place")

    def _base(self) -> Commit:
        """What stands for GOOD: GOOD itself over the graph, else the first-parent base (Range.base)."""
        return self.rng.good if self.graph_mode else self.rng.base

    def run(self) -> Outcome:
        start = time.monotonic()
        self._good_side_note()
        gates = self._verify_endpoints()
        culprits: list[Culprit] = []
        frontier: list[tuple[tuple[str, ...], tuple[str, ...], int, str | None]] = [(gates, (), -1, None)]
        if self.graph_mode:
            culprits, frontier = self._search_graph(gates), []
        while frontier:
            group, reverts, floor, masked_by = frontier.pop(0)
            found = self._search(group, reverts, floor, masked_by)
            culprits.extend(found)
            if self.options.all_culprits:
                frontier.extend(self._masked_frontier(found))
        evaluations = sum(1 for s in self.steps if not s.cached and s.judgements)
        return Outcome(
            range=self.rng, gates=gates, culprits=tuple(culprits), steps=tuple(self.steps),
            evaluations=evaluations, judgements=sum(s.judgements for s in self.steps), rounds=self.rounds,
            seconds=round(time.monotonic() - start, 3), notes=tuple(self.notes), dropped=dict(self.dropped),
            cut_points="build-aware" if self.cut_states is not None else "plain", cuts=self.cuts,
            cut_moves=tuple(self.cut_moves),
        )

    @property
    def lazy_bad(self) -> bool:
        """BAD is judged only when the search would name it (the gates are known without it)."""
        return not self.options.all_red

    def _first_cuts(self, spare: int) -> list[Point]:
        """The first ``spare`` commits the search would judge (judged beside GOOD with ``-j`` >= 2)."""
        if not spare:
            return []
        if self.graph_mode:
            commits = describe_many(self.rng.repo, commits_between(self.rng.repo, self.rng.good.sha, self.rng.bad.sha))
            graph = MultiGateDag(self.runner.gates, [c.sha for c in commits], {c.sha: c.parents for c in commits},
                                 self.rng.bad.sha, {c.sha: c.date for c in commits})
            by_sha = {c.sha: c for c in commits}
            return [Point(by_sha[sha]) for sha in graph.propose(spare)]
        return self._points(MultiGateSearch(self.runner.gates, len(self.rng.candidates)).propose(spare), ())

    def _verify_endpoints(self) -> tuple[str, ...]:
        """Judge GOOD before any search, so a wrong GOOD costs one judgement, not a search; with ``-j``
        >= 2 the spare slots of that round judge the first cut points (kept only if GOOD holds). BAD
        waits until the search would name it (``_bad_checked``), except with ``--all-red``, where
        BAD's verdicts choose the gates: then BAD first (``-j 1``) or beside GOOD. GOOD here is
        ``Range.base``: GOOD, or the first-parent commit judged in its place when GOOD is off BAD's
        first-parent line."""
        bad_point, good_point = Point(self.rng.bad), Point(self._base())
        jobs = max(1, self.options.jobs)
        if self.lazy_bad:
            ahead = self._first_cuts(jobs - 1)
            steps = self.judge_round([good_point, *ahead], "endpoint", phases=["endpoint"] + ["search"] * len(ahead))
            good_step = self._rechecked(good_point, steps[0], "good")
            gates = self._gates_green_at_good(good_step, tuple(self.runner.gates))
            self._prefetched = [(p.commit.sha, step) for p, step in zip(ahead, steps[1:], strict=True)]
            return gates
        if jobs == 1:
            bad_step = self._rechecked(bad_point, self.judge_round([bad_point], "endpoint")[0], "bad")
            gates = self._gates_red_at_bad(bad_step)
            good_step = self._rechecked(good_point, self.judge_round([good_point], "endpoint")[0], "good")
            return self._gates_green_at_good(good_step, gates)
        ahead = self._first_cuts(jobs - 2)
        steps = self.judge_round([bad_point, good_point, *ahead], "endpoint",
                                 phases=["endpoint", "endpoint"] + ["search"] * len(ahead))
        bad_step = self._rechecked(bad_point, steps[0], "bad")
        good_step = self._rechecked(good_point, steps[1], "good")
        gates = self._gates_green_at_good(good_step, self._gates_red_at_bad(bad_step))
        self._prefetched = [(p.commit.sha, step) for p, step in zip(ahead, steps[2:], strict=True)]
        return gates

    def _bad_checked(self, named_bad: Sequence[str]) -> dict[str, Verdict]:
        """BAD judged, when the search would name it the culprit of ``named_bad`` gates (no commit
        below it was judged bad): its red verdict is the culprit's proof. Judged once per run; a gate
        green at BAD stops the run (exit 2), as an endpoint check would have; untestable, exit 3."""
        try:
            step = self._known_step(self.rng.bad.sha, ())
        except KeyError:
            step = self._rechecked(Point(self.rng.bad), self.judge_round([Point(self.rng.bad)], "endpoint")[0], "bad")
        if self.lazy_bad:
            checked = replace(step, verdicts={g: v for g, v in step.verdicts.items() if g in named_bad})
            skipped = [g for g in named_bad if checked.verdicts.get(g) == "skip"]
            if skipped:
                raise BisectError(
                    f"BAD {self.rng.bad.sha[:10]} is untestable for {', '.join(skipped)} (see step {step.number}'s"
                    " log): pick a BAD where the test runs", ExitCode.INTERNAL)
            green = [g for g in named_bad if checked.verdicts.get(g) != "bad"]
            if green:
                what = "the command exits 0" if green == [COMMAND_GATE] else f"gate {', '.join(green)} is green"
                raise BisectError(
                    f"BAD endpoint {self.rng.bad.sha[:10]} judges good: {what} at BAD, and no commit of the range "
                    "judged bad, so there is nothing to bisect; check the BAD revision or the gate name",
                    ExitCode.USAGE)
        return dict(step.verdicts)

    # ---- flake-aware by default: a deciding verdict is judged again before it is believed ---------

    def _settle(self, point: Point, priors: Mapping[str, Verdict]) -> dict[str, Verdict]:
        """``priors`` are per-gate verdicts of ``point`` that decide the outcome (GOOD not green, BAD
        not red, a culprit red). Judge ``point`` again, fresh (one judgement serves every gate): one
        agreeing vote settles a gate; a disagreeing one makes it contested, judged again until one side
        leads by two (at most ``RECHECK_LIMIT`` fresh judgements); a prior stands unless overturned by
        a lead of two."""
        votes: dict[str, list[Verdict]] = {gate: [prior] for gate, prior in priors.items()}
        result = dict(priors)
        contested = set(priors)
        for extra in range(1, RECHECK_LIMIT + 1):
            if not contested:
                break
            fresh = self.judge_round([point], "recheck", repeat=1, purposes=[f"recheck-{extra}"])[0]
            for gate in sorted(contested):
                vote, prior = fresh.verdicts.get(gate, "skip"), priors[gate]
                if vote == "skip":
                    continue
                votes[gate].append(vote)
                other: Verdict = "good" if prior == "bad" else "bad"
                lead = votes[gate].count(prior) - votes[gate].count(other)
                if (len(votes[gate]) == 2 and vote == prior) or lead >= 2:
                    contested.discard(gate)
                elif lead <= -2:
                    result[gate] = other
                    contested.discard(gate)
                    self.notes.append(
                        f"{gate} at {point.commit.sha[:10]} judged {prior}, then {' '.join(votes[gate][1:])} afresh: "
                        f"{other} (flaky: {votes[gate].count(prior)} of {len(votes[gate])} votes said {prior})")
        return result

    def _rechecked(self, point: Point, step: Step, expected: Verdict) -> Step:
        """An endpoint step whose verdict would stop the run (GOOD not green, BAD not red), settled by
        fresh judgements unless --no-recheck or --all-red (where such gates are simply not bisected);
        the settled verdicts also serve later lookups."""
        if not self.options.recheck or self.options.all_red:
            return step
        priors = {g: v for g, v in step.verdicts.items() if v not in (expected, "skip")}
        if not priors:
            return step
        verdicts = {**step.verdicts, **self._settle(point, priors)}
        if verdicts == step.verdicts:
            return step
        self._settled[(point.commit.sha, point.reverts)] = verdicts
        return replace(step, verdicts=verdicts)

    def _recheck_culprits(self, outcomes: Mapping[str, tuple[Point, bool]],
                          record: Callable[[str, Point, Verdict], None]) -> bool:
        """Each exact culprit's red verdict judged again, fresh (one judgement when it holds, shared by
        the gates it is the culprit of); False when one was overturned (``record`` re-opens the search
        above it)."""
        by_point: dict[tuple[str, tuple[str, ...]], tuple[Point, list[str]]] = {}
        for gate, (point, exact) in outcomes.items():
            key = (point.commit.sha, point.reverts)
            if exact and (key, gate) not in self._rechecked_culprits:
                self._rechecked_culprits.add((key, gate))
                by_point.setdefault(key, (point, []))[1].append(gate)
        stable = True
        for key, (point, gates) in by_point.items():
            settled = self._settle(point, dict.fromkeys(gates, "bad"))
            for gate, verdict in settled.items():
                if verdict == "good":
                    self._settled.setdefault(key, {})[gate] = "good"
                    record(gate, point, "good")
                    stable = False
        return stable

    def _gates_red_at_bad(self, step: Step) -> tuple[str, ...]:
        red = tuple(g for g in self.runner.gates if step.verdicts.get(g) == "bad")
        skipped = [g for g in self.runner.gates if step.verdicts.get(g) == "skip"]
        if self.options.all_red:
            for gate in self.runner.gates:
                if gate not in red:
                    self.dropped[gate] = f"{step.verdicts.get(gate)} at BAD"
            if not red:
                raise BisectError(
                    f"nothing to bisect: no gate is red at BAD {self.rng.bad.sha[:10]}", ExitCode.NOTHING
                )
            return red
        if skipped:
            raise BisectError(
                f"BAD {self.rng.bad.sha[:10]} is untestable for {', '.join(skipped)} (see step {step.number}'s"
                " log): pick a BAD where the test runs", ExitCode.INTERNAL)
        green = [g for g in self.runner.gates if g not in red]
        if green:
            what = "the command exits 0" if green == [COMMAND_GATE] else f"gate {', '.join(green)} is green"
            raise BisectError(
                f"BAD endpoint {self.rng.bad.sha[:10]} judges good: {what} at BAD, so there is nothing to"
                " bisect; check the BAD revision or the gate name", ExitCode.USAGE)
        return red

    def _gates_green_at_good(self, step: Step, gates: tuple[str, ...]) -> tuple[str, ...]:
        bad_at_good = [g for g in gates if step.verdicts.get(g) != "good"]
        if not bad_at_good:
            return gates
        if self.options.all_red:
            for gate in bad_at_good:
                self.dropped[gate] = f"{step.verdicts.get(gate)} at GOOD too: not a regression in this range"
            kept = tuple(g for g in gates if g not in bad_at_good)
            if not kept:
                raise BisectError(
                    "nothing to bisect: every gate red at BAD is also red (or untestable) at GOOD "
                    f"{self.rng.base.sha[:10]}", ExitCode.NOTHING)
            return kept
        untestable = [g for g in bad_at_good if step.verdicts.get(g) == "skip"]
        if untestable:
            raise BisectError(
                f"GOOD {self.rng.base.sha[:10]} is untestable for {', '.join(untestable)} (see step {step.number}'s"
                " log): pick a GOOD where the test runs", ExitCode.INTERNAL)
        what = "the command fails" if bad_at_good == [COMMAND_GATE] else f"gate {', '.join(bad_at_good)} is not green"
        verdict = step.verdicts.get(bad_at_good[0])
        stale = [g for g in bad_at_good if (step.details.get(g) or {}).get("error_kind") == ARTIFACT_ERROR_KIND]
        if stale:
            first = step.details[stale[0]].get("error") or "the artifacts differ from the blessed ones"
            raise BisectError(
                f"GOOD endpoint {self.rng.good.sha[:10]}: gate {', '.join(stale)} sees other artifacts (weights) "
                f"than its goldens were blessed with: {first}. Files named by [suite] artifacts are the same at "
                "every commit, so no other GOOD helps: restore the blessed files, or re-bless with these "
                "(vtgate bless) and bisect again; weights the engine derives itself: pick a GOOD that derives "
                "the blessed ones", ExitCode.USAGE)
        if self.rng.floor is not None and not self.graph_mode:
            raise BisectError(
                f"GOOD endpoint {self.rng.good.sha[:10]} is off BAD's first-parent line, and the line's commit judged "
                f"in its place, {self.rng.floor.sha[:10]}, judges {verdict}: {what} there; pick a GOOD on BAD's "
                "first-parent line (git log --first-parent) where it passes", ExitCode.USAGE)
        raise BisectError(
            f"GOOD endpoint {self.rng.good.sha[:10]} judges {verdict}: {what} at GOOD; pick an older GOOD "
            "where it passes", ExitCode.USAGE)

    # ---- one search level ----------------------------------------------------------------------

    def _points(self, indices: Sequence[int], reverts: tuple[str, ...]) -> list[Point]:
        return [Point(self.rng.base if i < 0 else self.rng.candidates[i], reverts) for i in indices]

    def _search(self, gates: tuple[str, ...], reverts: tuple[str, ...], floor: int,
                masked_by: str | None) -> list[Culprit]:
        n = len(self.rng.candidates)
        search = MultiGateSearch(gates, n, last_good={g: floor for g in gates})
        if not reverts and floor < 0:
            for sha, step in self._prefetched:
                search.record(self.rng.index_of(sha), step.verdicts)
        phase = "masked" if reverts else "search"
        for _ in range(4 * n + 4):  # every pass records at least one new or overriding verdict
            self._run_rounds(search, reverts, phase)
            named_bad = [g for g, o in search.outcomes().items() if o.first_bad == n - 1 and o.exact]
            if named_bad and not reverts:
                verdicts = self._bad_checked(named_bad)  # raises unless BAD is red for them
                for gate in named_bad:
                    search.searches[gate].record(n - 1, verdicts[gate])
            if not self._good_side_checked(search, reverts, floor):
                continue
            if self.options.confirm and not self._confirm(search, reverts, floor):
                continue
            if not self.options.confirm and self.options.recheck and not self._recheck_culprits(
                    {g: (self._points([o.first_bad], reverts)[0], o.exact) for g, o in search.outcomes().items()},
                    lambda gate, point, verdict: search.searches[gate].record(
                        self.rng.index_of(point.commit.sha), verdict, override=True)):
                continue
            break
        culprits = self._culprits(search.outcomes(), reverts, masked_by)
        return [opened for c in culprits for opened in self._open_merge(c)]

    def _chooser(self, k: int, reverts: tuple[str, ...]) -> CutChooser | None:
        """Build-aware cuts (``build_aware_cut``) for one-at-a-time rounds without reverts, else None."""
        states = self.cut_states
        if states is None or k != 1 or reverts:
            return None

        def state(index: int) -> str | None:
            return states.state_of(self.rng.base.sha if index < 0 else self.rng.candidates[index].sha)

        built = _BuiltStates(states)

        def choose(lo: int, hi: int, plain: int, free: Sequence[int]) -> CutChoice:
            return build_aware_cut(lo, hi, plain, free, state, built)

        return choose

    def _built_commit(self, sha: str) -> bool:
        assert self.cut_states is not None
        state = self.cut_states.state_of(sha)
        return state is not None and self.cut_states.is_built(state)

    def _count_cuts(self, phase: str, chosen: int, moves: Sequence[tuple[str, str, str]]) -> None:
        self.cuts += chosen
        for sha, plain, reason in moves:
            self.cut_moves.append({"phase": phase, "plain": plain, "chosen": sha, "reason": reason})

    def _run_rounds(self, search: MultiGateSearch, reverts: tuple[str, ...], phase: str) -> None:
        k = max(1, self.options.jobs)
        chooser = self._chooser(k, reverts)
        while not search.done:
            indices = search.propose(k, chooser=chooser)
            if chooser is not None:
                sha = self._points
                self._count_cuts(phase, len(indices), [
                    (sha([c.index], reverts)[0].commit.sha, sha([c.plain], reverts)[0].commit.sha, c.reason)
                    for c in search.choices.values() if c.moved])
            mean = self.mean_seconds()
            steps_left = search.remaining_steps(k)
            eta = None if mean is None else mean * steps_left * max(1, self.options.repeat)
            self.handler.progress(phase, search.candidates_left(), steps_left, eta)
            for index, step in zip(indices, self.judge_round(self._points(indices, reverts), phase), strict=False):
                search.record(index, step.verdicts)

    def _good_side_checked(self, search: MultiGateSearch, reverts: tuple[str, ...], floor: int) -> bool:
        """Judge the floor (GOOD, or for a masked search the previous culprit with the reverts
        applied) when a bracket reaches it: the parent-green proof is never assumed."""
        needs = [g for g, o in search.outcomes().items() if o.last_good == floor]
        if not needs:
            return True
        point = Point(self.rng.base) if floor < 0 else Point(self.rng.candidates[floor], reverts)
        try:
            step = self._known_step(point.commit.sha, point.reverts)
        except KeyError:
            step = self.judge_round([point], "endpoint" if floor < 0 else "masked")[0]
        if floor < 0 and not reverts:
            self._apply_good(search, step)
            return True
        for gate in needs:
            if step.verdicts.get(gate) != "good":
                self.notes.append(
                    f"{gate}: {point.commit.sha[:10]} with {', '.join(r[:10] for r in reverts)} reverted judges "
                    f"{step.verdicts.get(gate)}, not green: the masked culprit's parent-green proof does not hold")
        return True

    def _known_step(self, sha: str, reverts: tuple[str, ...]) -> Step:
        for step in reversed(self.steps):
            if step.commit == sha and step.reverts == reverts and step.phase != "recheck":
                settled = self._settled.get((sha, reverts))
                return replace(step, verdicts={**step.verdicts, **settled}) if settled else step
        raise KeyError(sha)

    def _apply_good(self, search: MultiGateSearch, step: Step) -> None:
        for gate, gate_search in list(search.searches.items()):
            if step.verdicts.get(gate) != "good" and search.searches[gate].outcome().last_good < 0:
                if not self.options.all_red:
                    self._gates_green_at_good(step, (gate,))
                self.dropped[gate] = f"{step.verdicts.get(gate)} at GOOD too: not a regression in this range"
                del search.searches[gate]
                del gate_search
        if not search.searches:
            raise BisectError("nothing to bisect: every gate red at BAD is also red at GOOD", ExitCode.NOTHING)

    def _confirm(self, search: MultiGateSearch, reverts: tuple[str, ...], floor: int) -> bool:
        """Re-judge each culprit and its parent ``--confirm`` times; False when a verdict flipped
        (the search then resumes from the corrected bracket)."""
        stable = True
        for gate, outcome in search.outcomes().items():
            if gate not in search.searches:
                continue
            culprit_i, parent_i = outcome.first_bad, outcome.last_good
            indices = [i for i in (parent_i, culprit_i) if not (i == floor and (reverts or floor >= 0))]
            points = self._points(indices, reverts)
            purposes = [self._confirm_purpose(p) for p in points]
            steps = self.judge_round(points, "confirm", repeat=self.options.confirm, purposes=purposes)
            for index, point, purpose, step in zip(indices, points, purposes, steps, strict=False):
                if gate not in search.searches:
                    break
                expected: Verdict = "bad" if index == culprit_i else "good"
                verdict = self._confirmed_verdict(gate, point, step, expected, purpose)
                if verdict != expected:
                    key = (point.commit.sha, point.reverts)
                    self._overturned[key] = self._overturned.get(key, 0) + 1
                if index < 0 and verdict != "good":
                    self.notes.append(f"confirmation judged GOOD {verdict} for {gate}")
                    self._apply_good(search, replace(step, verdicts={**step.verdicts, gate: verdict}))
                    stable = False
                    break
                if verdict != expected:
                    stable = False
                    self.notes.append(
                        f"confirmation flipped {gate} at {step.commit[:10]}: {expected} -> {verdict}; search resumed")
                search.searches[gate].record(index, verdict, override=True)
        return stable

    def _confirm_purpose(self, point: Point) -> str:
        """A point whose verdict a confirmation overturned is confirmed afresh in its new role (the
        overturned parent now a culprit): the votes that overturned it cannot also confirm it."""
        flips = self._overturned.get((point.commit.sha, point.reverts), 0)
        return "confirm" if not flips else f"confirm-{flips + 1}"

    def _confirmed_verdict(self, gate: str, point: Point, confirmation: Step, expected: Verdict,
                           purpose: str) -> Verdict:
        """What a confirmation concludes for ``gate``. Its own fresh votes decide; but to overturn the
        search's verdict (``expected``) they must lead by two: a contested point gets one more fresh
        judgement at a time, at most ``--confirm`` of them, and a tie keeps the search's verdict.
        A bare 2-of-3 would overturn a good parent 2.8% of the time at a 10% flake rate, and the
        search then settles on that parent as the culprit; needing a lead of two cuts that to 1.2%."""
        verdict = confirmation.verdicts.get(gate, "skip")
        if verdict in (expected, "skip"):
            return verdict
        votes = list(confirmation.votes.get(gate, []))
        extra = 0
        while abs(votes.count("good") - votes.count("bad")) < 2 and extra < self.options.confirm:
            extra += 1
            more = self.judge_round([point], "confirm", repeat=1, purposes=[f"{purpose}-tie-break-{extra}"])[0]
            votes.extend(more.votes.get(gate, []))
        good, bad = votes.count("good"), votes.count("bad")
        if good == bad:
            return expected
        return "good" if good > bad else "bad"

    def _culprits(self, outcomes: Mapping[str, SearchOutcome], reverts: tuple[str, ...],
                  masked_by: str | None) -> list[Culprit]:
        groups: dict[tuple[int, tuple[int, ...]], list[str]] = {}
        for gate, outcome in outcomes.items():
            groups.setdefault((outcome.first_bad, outcome.candidates), []).append(gate)
        culprits = []
        for (first_bad, candidates), gates in sorted(groups.items()):
            commit = self.rng.candidates[first_bad]
            parent = self.rng.base.sha if outcomes[gates[0]].last_good < 0 else self.rng.candidates[outcomes[gates[0]].last_good].sha
            culprits.append(self._culprit(commit, gates, parent, reverts, masked_by,
                                          tuple(self.rng.candidates[i].sha for i in candidates)))
        return culprits

    def _culprit(self, commit: Commit, gates: Sequence[str], parent: str, reverts: tuple[str, ...],
                 masked_by: str | None, candidates: tuple[str, ...], note: str = "") -> Culprit:
        named = deliberate_gates(self.rng.repo, commit.sha)
        marked: frozenset[str] = getattr(self.runner, "deliberate", frozenset())
        deliberate = bool(named & set(gates)) or bool(marked & set(gates)) or (list(gates) == [COMMAND_GATE] and bool(named)) or "*" in named
        proof = {}
        for label, sha in (("parent_green", parent), ("culprit_red", commit.sha)):
            matching = [s.number for s in self.steps if s.commit == sha and s.reverts == reverts]
            if matching:
                proof[label] = f"step {matching[-1]}"
        return Culprit(
            commit=commit.sha, subject=commit.subject, gates=tuple(gates),
            kind="deliberate" if deliberate else "regression", masked_by=masked_by, parent=parent,
            reverts=reverts, candidates=candidates, diffstat=diffstat(self.rng.repo, commit.sha),
            proof=proof, note=note,
        )

    # ---- merges and masked culprits ------------------------------------------------------------

    def _open_merge(self, culprit: Culprit) -> list[Culprit]:
        """A merge culprit: bisect what the merge brought in over the commit graph (``vtbisect.dag``,
        git's find_bisection: the commit that best halves the suspects next), nested merges included,
        instead of a search per merge. The merge itself is the culprit when all it brought is green."""
        if self.options.first_parent or len(culprit.candidates) > 1 or culprit.reverts:
            return [culprit]
        info = describe(self.rng.repo, culprit.commit)
        if len(info.parents) < 2:
            return [culprit]
        brought = describe_many(self.rng.repo, commits_between(self.rng.repo, info.parents[0], culprit.commit))
        by_sha = {commit.sha: commit for commit in brought}
        graph = MultiGateDag(culprit.gates, list(by_sha), {c.sha: c.parents for c in brought}, culprit.commit,
                             {c.sha: c.date for c in brought})
        for sha in by_sha:  # verdicts this run already has (a merged tip judged earlier, say)
            with contextlib.suppress(KeyError):
                graph.record(sha, self._known_step(sha, ()).verdicts)
        while not graph.done:
            shas = graph.propose(max(1, self.options.jobs))
            for sha, step in zip(shas, self.judge_round([Point(by_sha[sha]) for sha in shas], "merge"), strict=True):
                graph.record(sha, step.verdicts)
        groups: dict[tuple[str, tuple[str, ...]], list[str]] = {}
        for gate, outcome in graph.outcomes().items():
            groups.setdefault((outcome.first_bad, outcome.candidates), []).append(gate)
        found = []
        for (first_bad, candidates), gates in sorted(groups.items()):
            commit = by_sha[first_bad]
            if first_bad == culprit.commit:
                note = "the merge itself breaks it: what it brought in is green"
                parent = culprit.parent
            else:
                note = f"on the branch merged by {culprit.commit[:10]} ({culprit.subject})"
                parent = commit.parents[0]
                self._judge_parent(parent, gates)
            found.append(self._culprit(commit, gates, parent, (), culprit.masked_by, candidates, note=note))
        return found

    def _search_graph(self, gates: tuple[str, ...]) -> list[Culprit]:
        """Bisect GOOD..BAD over the commit graph (``vtbisect.dag``: each round the commits that best
        halve the suspects), confirm with ``--confirm``, and name for each culprit off the first-parent
        line the merge that brought it in."""
        good = self.rng.good.sha
        commits = describe_many(self.rng.repo, commits_between(self.rng.repo, good, self.rng.bad.sha))
        by_sha = {commit.sha: commit for commit in commits}
        graph = MultiGateDag(gates, list(by_sha), {c.sha: c.parents for c in commits}, self.rng.bad.sha,
                             {c.sha: c.date for c in commits})
        for sha in by_sha:
            with contextlib.suppress(KeyError):
                graph.record(sha, self._known_step(sha, ()).verdicts)
        self.notes.append(f"searched over the commit graph: {len(by_sha)} commits in GOOD..BAD "
                          f"({len(self.rng.candidates)} on BAD's first-parent line)")
        for _ in range(4 * len(by_sha) + 4):
            while not graph.done:
                k = max(1, self.options.jobs)
                building = self.cut_states is not None and k == 1
                shas = graph.propose(k, built=self._built_commit if building else None)
                if building:
                    self._count_cuts("search", len(shas), graph.moves)
                self.handler.progress("search", sum(len(s.untested()) for s in graph.searches.values()),
                                      max(1, len(graph.searches[gates[0]].untested()).bit_length()), None)
                for sha, step in zip(shas, self.judge_round([Point(by_sha[sha]) for sha in shas], "search"),
                                     strict=True):
                    graph.record(sha, step.verdicts)
            bad = self.rng.bad.sha
            named_bad = [g for g, o in graph.outcomes().items() if o.first_bad == bad and o.exact]
            if named_bad:
                self._bad_checked(named_bad)  # raises unless BAD is red for them (the search assumed it)
            if self.options.confirm:
                if self._confirm_graph(graph, by_sha):
                    break
                continue
            if not self.options.recheck or self._recheck_culprits(
                    {g: (Point(by_sha[o.first_bad]), o.exact) for g, o in graph.outcomes().items()},
                    lambda gate, point, verdict: graph.searches[gate].record(point.commit.sha, verdict,
                                                                             override=True)):
                break
        groups: dict[tuple[str, tuple[str, ...]], list[str]] = {}
        for gate, outcome in graph.outcomes().items():
            groups.setdefault((outcome.first_bad, outcome.candidates), []).append(gate)
        found = []
        for (first_bad, candidates), group in sorted(groups.items()):
            commit = by_sha[first_bad]
            parent = commit.parents[0] if commit.parents else good
            self._judge_parent(parent, group)
            note = ""
            if len(candidates) == 1 and first_bad not in {c.sha for c in self.rng.candidates}:
                merge = merged_by(self.rng.repo, self.rng.candidates, first_bad)
                if merge is not None:
                    note = f"on the branch merged by {merge.sha[:10]} ({merge.subject})"
            elif len(candidates) == 1 and len(commit.parents) > 1:
                note = "the merge itself breaks it: what it brought in is green"
            found.append(self._culprit(commit, group, parent, (), None, candidates, note=note))
        return found

    def _confirm_graph(self, graph: MultiGateDag, by_sha: Mapping[str, Commit]) -> bool:
        """``--confirm N`` over the graph: re-judge each culprit and its first parent afresh (a lead of
        two fresh votes to overturn, as along the line); False when a verdict flipped."""
        stable = True
        for gate, outcome in graph.outcomes().items():
            culprit = by_sha[outcome.first_bad]
            points = [Point(culprit)]
            if culprit.parents and culprit.parents[0] in by_sha:
                points.insert(0, Point(by_sha[culprit.parents[0]]))
            purposes = [self._confirm_purpose(p) for p in points]
            steps = self.judge_round(points, "confirm", repeat=self.options.confirm, purposes=purposes)
            for point, purpose, step in zip(points, purposes, steps, strict=True):
                expected: Verdict = "bad" if point.commit.sha == culprit.sha else "good"
                verdict = self._confirmed_verdict(gate, point, step, expected, purpose)
                if verdict not in (expected, "skip"):
                    key = (point.commit.sha, point.reverts)
                    self._overturned[key] = self._overturned.get(key, 0) + 1
                    stable = False
                    self.notes.append(f"confirmation flipped {gate} at {point.commit.sha[:10]}: {expected} -> "
                                      f"{verdict}; search resumed")
                    graph.searches[gate].record(point.commit.sha, verdict, override=True)
        return stable

    def _judge_parent(self, parent: str, gates: Sequence[str]) -> None:
        """The parent-green proof of a culprit found over the graph is judged, never assumed."""
        try:
            step = self._known_step(parent, ())
        except KeyError:
            step = self.judge_round([Point(describe(self.rng.repo, parent))], "merge")[0]
        for gate in gates:
            if step.verdicts.get(gate) != "good":
                self.notes.append(f"{gate}: the parent {parent[:10]} of the culprit on a merged branch judges "
                                  f"{step.verdicts.get(gate)}, not green: its parent-green proof does not hold")

    def _masked_frontier(self, found: Sequence[Culprit]) -> list[tuple[tuple[str, ...], tuple[str, ...], int, str | None]]:
        """For each exact culprit: revert it at BAD; the gates still red get a masked search after it."""
        frontier: list[tuple[tuple[str, ...], tuple[str, ...], int, str | None]] = []
        for culprit in found:
            if len(culprit.candidates) > 1:
                self.notes.append(f"culprit of {', '.join(culprit.gates)} is ambiguous: masked search stopped")
                continue
            try:
                index = self.rng.index_of(culprit.commit)
            except KeyError:
                self.notes.append(f"{culprit.commit[:10]} is off the first-parent chain: masked search stopped")
                continue
            reverts = (*culprit.reverts, culprit.commit)
            step = self.judge_round([Point(self.rng.bad, reverts)], "masked")[0]
            if step.note.startswith("conflict:"):
                self.notes.append(
                    f"reverting {culprit.commit[:10]} at BAD conflicts ({step.log.strip()}); masked search for"
                    f" {', '.join(culprit.gates)} stopped at {step.note.split(':', 1)[1][:10]}")
                continue
            still_red = tuple(g for g in culprit.gates if step.verdicts.get(g) == "bad")
            if not still_red:
                continue
            if index == len(self.rng.candidates) - 1:
                self.notes.append(f"{', '.join(still_red)} still red at BAD with BAD itself reverted")
                continue
            frontier.append((still_red, reverts, index, culprit.commit))
        return frontier
