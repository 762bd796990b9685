"""The handlers: what the user is told. Progress lines on stderr (rich), the JSON record
(docs/json-formats.md), the evidence folder (README-bisect.md, step logs, the JSON, a
``git bisect replay``-compatible log) and the replay log's parser."""

from __future__ import annotations

import hashlib
import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from vtgate.output import Part, atomic_write_text, dumps, say

from vtbisect import __version__
from vtbisect.records import Culprit, Outcome, Step
from vtbisect.search import Verdict

SCHEMA = 1
LOG_MARKER = "# vtbisect-record: "


class ProgressHandler:
    """One line per judged step and per round, on stderr: range left, ~steps left, ETA. Commit subjects
    and gate names are data: printed as text, never as markup. ``judged`` counts the steps shown so far
    (what an interrupted run reports)."""

    def __init__(self, console: Console, quiet: bool = False) -> None:
        self.console = console
        self.quiet = quiet
        self.judged = 0
        self.left: int | None = None

    def step(self, step: Step) -> None:
        self.judged += 1
        if self.quiet:
            return
        source = "cache" if step.cached else f"{step.seconds:.2f}s"
        flaky: list[Part] = [(f" flaky {g} {rate:.0%}", "yellow") for g, rate in step.flaky.items()]
        reverts = f" (reverting {', '.join(r[:10] for r in step.reverts)})" if step.reverts else ""
        gates = "" if list(step.verdicts) == ["command"] else " " + " ".join(
            f"{g}={v}" for g, v in step.verdicts.items())
        colour = {"good": "green", "bad": "red", "skip": "yellow"}[step.verdict]
        say(f"  step {step.number:>3} ", (f"{step.verdict:<4}", colour), f" {step.commit[:10]} "
            f"{step.subject[:60]}{reverts}{gates}  ({step.phase}, {source})", *flaky, to=self.console)

    def progress(self, phase: str, left: int, steps_left: int, eta: float | None) -> None:
        self.left = left
        if self.quiet:
            return
        eta_text = f", ETA {eta:.1f}s" if eta is not None else ""
        say((f"{phase}: {left} candidates left, ~{steps_left} steps left{eta_text}", "dim"), to=self.console)

    def info(self, message: str) -> None:
        if not self.quiet:
            say(message, to=self.console)


def step_record(step: Step) -> dict[str, Any]:
    record: dict[str, Any] = {
        "commit": step.commit,
        "verdict": step.verdict,
        "gates": step.verdicts,
        "cached": step.cached,
        "seconds": step.seconds,
        "number": step.number,
        "phase": step.phase,
        "round": step.round,
        "reverts": list(step.reverts),
        "judgements": step.judgements,
    }
    if step.flaky:
        record["flaky"] = {g: round(rate, 3) for g, rate in step.flaky.items()}
        record["votes"] = step.votes
    if step.note:
        record["note"] = step.note
    return record


def culprit_record(culprit: Culprit) -> dict[str, Any]:
    return {
        "commit": culprit.commit,
        "subject": culprit.subject,
        "gates": list(culprit.gates),
        "kind": culprit.kind,
        "masked_by": culprit.masked_by,
        "parent": culprit.parent,
        "reverts": list(culprit.reverts),
        "candidates": list(culprit.candidates),
        "exact": len(culprit.candidates) == 1,
        "proof": culprit.proof,
        "note": culprit.note or None,
    }


def outcome_record(outcome: Outcome, recipe: dict[str, Any], build: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``--json`` record: docs/json-formats.md, docs/schemas/bisect.schema.json; ``build`` when a build
    step ran (``vtbisect.build.Builder.record``)."""
    record = {
        "schema": SCHEMA,
        "vtbisect": __version__,
        "good": outcome.range.good.sha,
        "bad": outcome.range.bad.sha,
        "range": outcome.range.spec,
        "candidates": len(outcome.range.candidates),
        "gates": list(outcome.gates),
        "dropped": outcome.dropped,
        "culprits": [culprit_record(c) for c in outcome.culprits],
        "steps": [step_record(s) for s in outcome.steps],
        "evaluations": outcome.evaluations,
        "judgements": outcome.judgements,
        "rounds": outcome.rounds,
        "seconds": outcome.seconds,
        "notes": list(outcome.notes),
        "recipe": recipe,
    }
    if build is not None:
        record["build"] = build
    return record


REASONS = {"built": "to a commit whose build was already done",
           "fewer builds": "to a build state more candidates share (fewer builds expected)"}


def cut_points_record(outcome: Outcome) -> dict[str, Any]:
    """The build record's ``cut_points``: the rule, how many cuts it chose, which moved and why."""
    return {"rule": outcome.cut_points, "cuts": outcome.cuts, "moved": len(outcome.cut_moves),
            "moves": [dict(move) for move in outcome.cut_moves]}


def cut_points_summary(cuts: dict[str, Any]) -> str:
    if cuts["rule"] != "build-aware":
        return "cut points: plain (git's midpoint)"
    reasons: dict[str, int] = {}
    for move in cuts["moves"]:
        reasons[move["reason"]] = reasons.get(move["reason"], 0) + 1
    why = ", ".join(f"{n} {REASONS.get(reason, reason)}" for reason, n in sorted(reasons.items()))
    return f"cut points: build-aware, {cuts['moved']} of {cuts['cuts']} moved off the midpoint" + (f" ({why})" if why else "")


def build_summary(build: dict[str, Any], judgements: int) -> str:
    """One line: what the build step did over the run."""
    parts = [f"build step: {build['builds']} builds ({build['build_failures']} failed) for {judgements} judgements"]
    if build.get("build_cache"):
        parts.append(f"build cache {build['cache_hits']} hits / {build['cache_misses']} misses over "
                     f"{build['distinct_inputs']} distinct inputs, {build['seconds_saved']:.1f}s saved")
    if build.get("artifact"):
        parts.append(f"{build['artifacts_installed']} artifacts installed, {build['artifacts_missing']} missing")
    if build.get("lock"):
        parts.append(f"{build['envs_created']} environments created, {build['env_hits']} reused")
    if build.get("compiler_cache"):
        parts.append(f"compilers through {build['compiler_cache']} ({build['compiler_cache_dir']})")
    if build.get("cut_points"):
        parts.append(cut_points_summary(build["cut_points"]))
    return "; ".join(parts)


def build_section(build: dict[str, Any], judgements: int) -> list[str]:
    """The evidence README's account of the build step: settings, counts, and what each candidate got."""
    out = ["## Build step", "", build_summary(build, judgements) + ".", ""]
    settings = [("setup", shlex.join(build["setup"]) if build["setup"] else None),
                ("setup timeout", build["setup_timeout"]), ("setup failure", build["setup_failure"]),
                ("build inputs", ", ".join(build["build_inputs"]) or None),
                ("build outputs", ", ".join(build["build_outputs"]) or None),
                ("artifact", build["artifact"]), ("artifact missing", build["artifact_missing"] if build["artifact"] else None),
                ("lock file", build["lock"]), ("compiler cache", build["compiler_cache"])]
    out += [f"- {name}: `{value}`" for name, value in settings if value is not None]
    out += ["", "Each step's log starts with its build step (setup output, cache hit or artifact).", "",
            "| commit | reverts | how | seconds | input key | saved |", "|---|---|---|---|---|---|"]
    for event in build["events"]:
        reverts = ", ".join(r[:10] for r in event.get("reverts", [])) or "-"
        out.append(f"| `{event['commit'][:10]}` | {reverts} | {event['how']} | {event['seconds']:.2f}s | "
                   f"{str(event.get('input_key', '-'))[:16]} | {event.get('saved_seconds', 0.0):.2f}s |")
    out.append("")
    return out


def settled_verdict(steps: Sequence[Step], step: Step) -> Verdict:
    """``step``'s verdict, or the other one when the fresh rechecks of its commit overturned it (a
    lead of two votes, as the driver rules)."""
    votes = [step.verdict] + [s.verdict for s in steps if s.phase == "recheck" and s.commit == step.commit
                              and s.reverts == step.reverts and s.verdict != "skip"]
    other: Verdict = "good" if step.verdict == "bad" else "bad"
    return other if step.verdict != "skip" and votes.count(other) - votes.count(step.verdict) >= 2 else step.verdict


def bisect_log(outcome: Outcome, recipe: dict[str, Any]) -> str:
    """A ``git bisect replay``-compatible log of the unreverted judgements (reverted ones are
    comments: git bisect has no notion of them), plus a marker line ``vtbisect replay`` reads."""
    lines = [LOG_MARKER + json.dumps({"recipe": recipe, "culprits": [culprit_record(c) for c in outcome.culprits],
                                      "good": outcome.range.good.sha, "bad": outcome.range.bad.sha})]
    lines.append(f"git bisect start {outcome.range.bad.sha} {outcome.range.good.sha}")
    for step in outcome.steps:
        words = {"good": "good", "bad": "bad", "skip": "skip"}
        if step.phase == "recheck":  # one vote of a settled verdict: the settled one is what git should see
            lines.append(f"# recheck vote {step.verdict}: [{step.commit}] {step.subject}")
            continue
        if step.reverts:
            lines.append(f"# {step.verdict} with {', '.join(r[:10] for r in step.reverts)} reverted: "
                         f"[{step.commit}] {step.subject}")
            continue
        if step.commit in (outcome.range.good.sha, outcome.range.bad.sha) and step.phase == "endpoint":
            continue
        verdict = settled_verdict(outcome.steps, step)
        lines.append(f"# {step.verdict}: [{step.commit}] {step.subject}"
                     + (f" (settled {verdict} by its rechecks)" if verdict != step.verdict else ""))
        lines.append(f"git bisect {words[verdict]} {step.commit}")
    for culprit in outcome.culprits:
        label = "first bad commit" if len(culprit.candidates) == 1 else "only skipped commits left to test"
        lines.append(f"# {label}: [{culprit.commit}] {culprit.subject} ({', '.join(culprit.gates)})")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class ReplayRecord:
    recipe: dict[str, Any]
    culprits: list[dict[str, Any]]
    good: str
    bad: str


def parse_bisect_log(text: str) -> ReplayRecord:
    for line in text.splitlines():
        if line.startswith(LOG_MARKER):
            data = json.loads(line[len(LOG_MARKER):])
            return ReplayRecord(data["recipe"], data["culprits"], data["good"], data["bad"])
    raise ValueError(f"no '{LOG_MARKER.strip()}' line: not a log written by vtbisect --evidence")


def recipe_command(recipe: dict[str, Any]) -> str:
    """The runner as one shell line; ``$WORKTREE`` stands for the candidate's worktree."""
    return shlex.join(recipe["argv"]).replace("'<worktree>'", '"$WORKTREE"')


def readme(outcome: Outcome, recipe: dict[str, Any], step_logs: dict[int, str],
           build: dict[str, Any] | None = None) -> str:
    rng = outcome.range
    out = [
        "# Bisection record",
        "",
        f"Written by vtbisect {__version__}. Range `{rng.spec}` in `{rng.repo}`.",
        "",
        "## Bracket",
        "",
        f"- GOOD: `{rng.good.sha}` {rng.good.subject}",
        f"- BAD:  `{rng.bad.sha}` {rng.bad.subject}",
        f"- candidates: {len(rng.candidates)} (first-parent chain"
        + (f", limited to `{' '.join(rng.pathspec)}`" if rng.pathspec else "") + ")",
        f"- gates: {', '.join(outcome.gates)}",
    ]
    for gate, why in outcome.dropped.items():
        out.append(f"- not bisected: {gate} ({why})")
    subdir = recipe.get("subdir") or ""
    where = f"the worktree's `{subdir}` folder (where you ran vtbisect)" if subdir else "the worktree root"
    out += ["", "## Runner recipe", "",
            "Reproduce the whole bisection, every step judged afresh (`--no-cache`; without it, verdicts an "
            "earlier run left in the cache are reused, not re-judged). The range is named by full commit ids, "
            "so it is the same range whatever branches have moved to since:", "", "```sh",
            recipe["reproduce"], "```", "",
            "Each step ran in a detached worktree of the candidate (`git worktree add --detach`, clean and "
            "verified at the commit before the run; a masked culprit's steps with the earlier culprits "
            f"reverted by `git revert --no-commit`), with the working directory at {where} "
            "(`WORKTREE`):", "", "```sh",
            "cd \"$WORKTREE" + (f"/{subdir}" if subdir else "") + "\" && " + recipe_command(recipe), "```", ""]
    if recipe.get("mode") == "gate":
        out += [f"The oracle (suite and goldens) was copied once from {recipe.get('oracle_source')} into "
                f"`{recipe.get('suite')}` (digest `{recipe.get('digest')}`); every candidate was judged "
                "against it, never against its own goldens.", ""]
    if recipe.get("judge_files"):
        out += ["The judge read these files from outside the candidate's tree (their sha256 is part of every "
                "verdict's cache key; copies in `judge/`):", ""]
        out += [f"- `{path}` sha256 `{digest}` ([copy]({judge_copy_name(i, path)}))"
                for i, (path, digest) in enumerate(recipe["judge_files"].items())]
        out.append("")
    if recipe.get("env"):
        out += ["Environment that reaches the verdict (and the cache key):", "", "```"]
        out += [f"{k}={v}" for k, v in recipe["env"].items()]
        out += ["```", ""]
    if build is not None:
        out += build_section(build, outcome.judgements)
    out += ["## Culprits", ""]
    if not outcome.culprits:
        out.append("None.")
    for culprit in outcome.culprits:
        out += culprit_section(culprit, outcome.steps)
    out += ["## Steps", "",
            f"{outcome.evaluations} evaluations ({outcome.judgements} judgements) in {outcome.rounds} rounds, "
            f"{outcome.seconds:.2f}s.", "",
            "| # | phase | commit | reverts | verdict | gates | time | cache | log |",
            "|---|---|---|---|---|---|---|---|---|"]
    for step in outcome.steps:
        gates = ", ".join(f"{g}={v}" for g, v in step.verdicts.items())
        if step.flaky:
            gates += " (flaky " + ", ".join(f"{g} {r:.0%}" for g, r in step.flaky.items()) + ")"
        reverts = ", ".join(r[:10] for r in step.reverts) or "-"
        out.append(f"| {step.number} | {step.phase} | `{step.commit[:10]}` {step.subject[:50]} | {reverts} | "
                   f"{step.verdict} | {gates} | {step.seconds:.2f}s | {'hit' if step.cached else 'miss'} | "
                   f"[log]({step_logs.get(step.number, '')}) |")
    if outcome.notes:
        out += ["", "## Notes", ""] + [f"- {note}" for note in outcome.notes]
    out += ["", "## Files", "", "- `bisect.json`: the record (vtgate docs/json-formats.md)",
            "- `bisect-log.txt`: `git bisect replay bisect-log.txt` replays the unreverted steps; "
            "`vtbisect replay bisect-log.txt` re-judges each culprit and its parent",
            "- `steps/`: the raw output of every step", ""]
    return "\n".join(out)


def _judged(steps: Sequence[Step], commit: str, reverts: tuple[str, ...]) -> Step | None:
    matching = [s for s in steps if s.commit == commit and s.reverts == reverts]
    return matching[-1] if matching else None


def _proof_text(steps: Sequence[Step], label: str | None) -> str:
    """``step N``, labelled when that step's verdict came from the cache of an earlier run."""
    if label is None:
        return "not judged"
    number = int(label.split()[-1]) if label.split()[-1].isdigit() else None
    step = next((s for s in steps if s.number == number), None)
    if step is not None and step.cached:
        return f"{label}, a cache hit: judged by an earlier run, not this one; re-judge with --no-cache"
    return label


def culprit_section(culprit: Culprit, steps: Sequence[Step] = ()) -> list[str]:
    title = "deliberate red" if culprit.kind == "deliberate" else "regression"
    if len(culprit.candidates) > 1:
        lines = [f"### The first bad commit is one of {len(culprit.candidates)} commits ({title})", "",
                 f"- gates: {', '.join(culprit.gates)}",
                 "- the boundary lies among untestable commits; each member and what it was judged:"]
        for member in culprit.candidates:
            step = _judged(steps, member, culprit.reverts)
            status = (f"{step.verdict} at step {step.number}" + (" (cache hit)" if step.cached else "")
                      if step is not None else "not judged")
            lines.append(f"  - `{member}`: {status}")
    else:
        lines = [f"### `{culprit.commit[:10]}` {culprit.subject} ({title})", "",
                 f"- gates: {', '.join(culprit.gates)}",
                 f"- commit: `{culprit.commit}`"]
    if culprit.masked_by:
        lines.append(f"- masked by `{culprit.masked_by[:10]}`: found with "
                     + ", ".join(f"`{r[:10]}`" for r in culprit.reverts) + " reverted at every candidate")
    if culprit.note:
        lines.append(f"- {culprit.note}")
    parent_label = culprit.proof.get("parent_green")
    parent = (f"parent `{culprit.parent[:10]}` green ({_proof_text(steps, parent_label)})" if parent_label
              else f"parent `{culprit.parent[:10]}` not judged: no parent-green proof")
    red = "last member" if len(culprit.candidates) > 1 else "culprit"
    lines.append(f"- proof: {parent}; {red} red ({_proof_text(steps, culprit.proof.get('culprit_red'))})")
    if culprit.diffstat and len(culprit.candidates) == 1:
        lines += ["", "```", culprit.diffstat, "```"]
    lines.append("")
    return lines


def judge_copy_name(index: int, path: str) -> str:
    return f"judge/{index + 1}-{Path(path).name}"


def copy_judge_files(directory: Path, recipe: dict[str, Any]) -> None:
    """A copy of each file outside the worktree that judged the steps (the judge script), as hashed."""
    for index, (path, digest) in enumerate(recipe.get("judge_files", {}).items()):
        source = Path(path)
        if not source.is_file():
            continue
        data = source.read_bytes()
        target = directory / judge_copy_name(index, path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if hashlib.sha256(data).hexdigest() != digest:
            atomic_write_text(target.with_name(target.name + ".CHANGED"),
                              f"{path} changed after the run started: this copy is not the one hashed {digest}\n")


def write_evidence(directory: Path, outcome: Outcome, recipe: dict[str, Any],
                   build: dict[str, Any] | None = None) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    steps_dir = directory / "steps"
    steps_dir.mkdir(exist_ok=True)
    step_logs: dict[int, str] = {}
    for step in outcome.steps:
        name = f"steps/{step.number:03d}-{step.commit[:10]}.log"
        header = (f"step {step.number} ({step.phase}) at {step.commit}\nreverts: {' '.join(step.reverts) or '-'}\n"
                  f"verdicts: {json.dumps(step.verdicts)}\ncached: {step.cached}\n\n")
        atomic_write_text(directory / name, header + (step.log or "(served from the cache: no log kept)\n"))
        step_logs[step.number] = name
    copy_judge_files(directory, recipe)
    atomic_write_text(directory / "bisect.json", dumps(outcome_record(outcome, recipe, build)))
    atomic_write_text(directory / "bisect-log.txt", bisect_log(outcome, recipe))
    atomic_write_text(directory / "README-bisect.md", readme(outcome, recipe, step_logs, build))


def summary_lines(outcome: Outcome) -> Sequence[str]:
    lines = []
    for culprit in outcome.culprits:
        kind = "deliberate red" if culprit.kind == "deliberate" else "first bad commit"
        masked = f", masked by {culprit.masked_by[:10]}" if culprit.masked_by else ""
        if len(culprit.candidates) > 1:
            lines.append(f"{', '.join(culprit.gates)}: the first bad commit is one of "
                         + " ".join(c[:10] for c in culprit.candidates))
        else:
            lines.append(f"{', '.join(culprit.gates)}: {kind} {culprit.commit[:10]} {culprit.subject}{masked}")
    lines.append(f"{outcome.evaluations} evaluations, {outcome.rounds} rounds, {outcome.seconds:.2f}s "
                 f"over {len(outcome.range.candidates)} candidates")
    return lines
