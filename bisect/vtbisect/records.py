"""The records of a bisection: its options, each judged step, each culprit, the whole outcome, the
handler that is told of progress, and the error that stops a run with an exit code. ``vtbisect.driver``
produces them; ``vtbisect.report`` and the commands read them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from vtgate.exitcodes import ExitCode

from vtbisect.revisions import Commit, Range
from vtbisect.search import Verdict, flake_rate


class BisectError(Exception):
    """The bisection stops with a message for the user and an exit code (docs/contracts.md#exit-codes)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True)
class Options:
    jobs: int = 1
    repeat: int = 1
    confirm: int = 0
    all_culprits: bool = False
    first_parent: bool = False
    all_red: bool = False
    recheck: bool = True  # flake-aware default: deciding verdicts judged again (--no-recheck: git's judge-once)


@dataclass(frozen=True)
class Step:
    """One judged point: a commit with reverts applied, settled verdicts per gate, how it was got."""

    number: int
    phase: str  # endpoint | search | confirm | masked | merge
    commit: str
    subject: str
    reverts: tuple[str, ...]
    verdicts: dict[str, Verdict]
    votes: dict[str, list[Verdict]]
    cached: bool
    seconds: float
    judgements: int
    round: int
    log: str
    details: dict[str, Any] = field(default_factory=dict)
    note: str = ""

    @property
    def verdict(self) -> Verdict:
        values = list(self.verdicts.values())
        if "bad" in values:
            return "bad"
        if values and all(v == "skip" for v in values):
            return "skip"
        return "good"

    @property
    def flaky(self) -> dict[str, float]:
        return {
            g: flake_rate(v, self.verdicts[g]) for g, v in self.votes.items()
            if flake_rate(v, self.verdicts[g]) > 0
        }


@dataclass(frozen=True)
class Culprit:
    commit: str
    subject: str
    gates: tuple[str, ...]
    kind: str  # regression | deliberate
    masked_by: str | None
    parent: str
    reverts: tuple[str, ...]
    candidates: tuple[str, ...]  # more than one: "the first bad commit is one of ..."
    diffstat: str
    proof: dict[str, str]  # step number of the parent-green and culprit-red judgements
    note: str = ""


@dataclass(frozen=True)
class Outcome:
    range: Range
    gates: tuple[str, ...]
    culprits: tuple[Culprit, ...]
    steps: tuple[Step, ...]
    evaluations: int
    judgements: int
    rounds: int
    seconds: float
    notes: tuple[str, ...]
    dropped: dict[str, str]
    cut_points: str = "plain"  # "build-aware" when the cuts could move to save builds (vtbisect.search)
    cuts: int = 0  # cut points chosen under the build-aware rule
    cut_moves: tuple[dict[str, str], ...] = ()  # each moved cut: phase, plain, chosen, reason

    @property
    def exit_code(self) -> int:
        return ExitCode.RED if any(c.kind == "regression" for c in self.culprits) else ExitCode.OK


class Handler(Protocol):
    def step(self, step: Step) -> None: ...

    def progress(self, phase: str, left: int, steps_left: int, eta: float | None) -> None: ...

    def info(self, message: str) -> None: ...


class SilentHandler:
    def step(self, step: Step) -> None:
        pass

    def progress(self, phase: str, left: int, steps_left: int, eta: float | None) -> None:
        pass

    def info(self, message: str) -> None:
        pass


@dataclass(frozen=True)
class Evaluation:
    """What judging one point produced (fresh or from the cache)."""

    verdicts: dict[str, Verdict]
    votes: dict[str, list[Verdict]]
    log: str
    seconds: float
    runs: int
    details: dict[str, Any]
    note: str  # "conflict:<sha>" when a revert did not apply


@dataclass(frozen=True)
class Point:
    commit: Commit
    reverts: tuple[str, ...] = ()
