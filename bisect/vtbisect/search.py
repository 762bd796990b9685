"""The search: which candidates to judge next and what the judgements so far prove. Pure: no git, no
processes, no clock; it works on candidate *indices* and is tested with fake verdict functions.

Candidates are ``0 .. n-1`` in topological order (oldest first); index ``n-1`` is BAD and index
``-1`` stands for GOOD. For one gate, ``GateSearch`` keeps every verdict it has been told and derives
the bracket from them: ``lo`` = the newest index judged good (GOOD by default), ``hi`` = the oldest
index above ``lo`` judged bad (BAD by default). The first bad commit lies in ``(lo, hi]``.

- Binary search and k-way multisection are one rule: ``propose(k)`` splits ``(lo, hi)`` into ``k+1``
  parts and proposes the ``k`` cut points, so one round of ``k`` concurrent judgements shrinks the
  bracket ``k+1``-fold. k = 1 is git's midpoint; for k >= 2 the parts are those of a complete
  (k+1)-ary tree (``part_sizes``): the same worst case as equal parts, fewer rounds on average.
- Untestable (``skip``) candidates are handled like git bisect: a cut point that is untestable is
  replaced by its nearest untested neighbour; when every commit strictly inside the bracket is
  untestable, the result is ambiguous: "the first bad commit is one of ...".
- Verdicts can be overridden (``record(..., override=True)``) when a confirmation re-judges a commit:
  the bracket is recomputed from all verdicts, so a flaky "bad" that was disproved re-opens the range
  above it instead of leaving a wrong culprit.
- ``MultiGateSearch`` runs one ``GateSearch`` per gate over the same candidates and picks each round's
  candidates so that the gates share judgements: one judgement of a commit yields a verdict for every
  gate.
- Build-aware cut points (``build_aware_cut``, on when a build cache knows each commit's build-input
  state): a one-at-a-time cut may move off the midpoint to a candidate whose split of the bracket stays
  within ``[CUT_TOLERANCE, 1 - CUT_TOLERANCE]`` when that lowers the expected cost, a build weighed as
  ``BUILD_WEIGHT`` judgements. Any cut inside the bracket keeps the search correct; only the order of
  the judgements changes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

Verdict = Literal["good", "bad", "skip"]
VERDICTS: tuple[Verdict, ...] = ("good", "bad", "skip")
GOOD_INDEX = -1
CUT_TOLERANCE = 0.35  # a build-aware cut splits the bracket no worse than 35:65
BUILD_WEIGHT = 3.0  # a build costs as much as three judgements (fixed: the choice never depends on timing)
EXACT_SPAN = 48  # brackets up to this many positions get the exact expected-cost choice; wider: built-state rule
WINDOW_CAP = 32  # wider brackets: at most this many candidates nearest the midpoint are looked at


@dataclass(frozen=True)
class SearchOutcome:
    """What the verdicts prove for one gate: the first bad index, or the set it must be one of."""

    gate: str
    first_bad: int  # the oldest index known bad above the newest known good (hi)
    last_good: int  # the newest index known good (lo); -1 is GOOD
    candidates: tuple[int, ...]  # (first_bad,) when exact; untestable indices + first_bad when not

    @property
    def exact(self) -> bool:
        return len(self.candidates) == 1


@dataclass(frozen=True)
class CutChoice:
    """Where a cut went: ``index`` (judged), ``plain`` (where the midpoint rule would cut) and why they
    differ: ``""`` (they do not), ``"built"`` (the plain pick needs a build and the chosen commit's build
    inputs are already built) or ``"fewer builds"`` (the choice leaves brackets that are expected to need
    fewer builds later, e.g. its build state is shared by more of the candidates)."""

    index: int
    plain: int
    reason: str = ""

    @property
    def moved(self) -> bool:
        return self.index != self.plain


class CutChooser(Protocol):
    """Picks one cut of ``(lo, hi)`` given the plain pick and the untested candidates inside
    (``build_aware_cut`` with a build's states bound in)."""

    def __call__(self, lo: int, hi: int, plain: int, free: Sequence[int]) -> CutChoice: ...


def build_aware_cut(lo: int, hi: int, plain: int, free: Sequence[int], state: Callable[[int], str | None],
                    built: Container[str], *, weight: float = BUILD_WEIGHT,
                    tolerance: float = CUT_TOLERANCE, exact_span: int = EXACT_SPAN) -> CutChoice:
    """The cut of ``(lo, hi)`` with the lowest expected cost (one judgement, plus ``weight`` when its
    build-input ``state`` is not ``built``, plus the expected cost of the bracket it leaves, the first bad
    commit taken as equally likely anywhere in ``(lo, hi]``), among ``plain`` and the untested candidates
    whose split lies within ``[tolerance, 1 - tolerance]``. Every later cut is assumed to follow the same
    rule, and a judged cut's state counts as built from then on (exact over a bracket of up to
    ``exact_span`` positions; a wider one only moves the cut to the candidate nearest ``plain`` whose state
    is built, if any). ``state`` returns None for an unknown state (never built). Ties keep ``plain``, then
    the nearest to it, then the older. Deterministic: no timing, no randomness."""
    span = hi - lo
    untested = frozenset(free)

    def in_window(i: int, a: int, b: int) -> bool:
        return tolerance * (b - a) <= i - a <= (1 - tolerance) * (b - a)

    def new(i: int, a: int, b: int) -> bool:
        """Judging ``i`` in ``(a, b)`` needs a build: its state is unknown, or neither built nor that of a
        cut assumed judged (``a`` above ``lo``, ``b`` below ``hi``)."""
        s = state(i)
        return s is None or not (s in built or (a != lo and s == state(a)) or (b != hi and s == state(b)))

    if span > exact_span:
        window = sorted((i for i in untested if in_window(i, lo, hi)), key=lambda i: (abs(i - plain), i))
        hits = [i for i in window[:WINDOW_CAP] if not new(i, lo, hi)]
        if plain in untested and not new(plain, lo, hi):
            return CutChoice(plain, plain)
        return CutChoice(hits[0], plain, "built") if hits else CutChoice(plain, plain)

    @functools.cache
    def expected(a: int, b: int) -> float:
        cuts = [i for i in range(a + 1, b) if i in untested]
        if not cuts:
            return 0.0
        window = [i for i in cuts if in_window(i, a, b)]
        if not window:
            middle = (a + b) / 2
            window = [min(cuts, key=lambda i: (abs(i - middle), i))]
        return min(cost(i, a, b) for i in window)

    def cost(i: int, a: int, b: int) -> float:
        return (1.0 + weight * new(i, a, b) + (i - a) / (b - a) * expected(a, i)
                + (b - i) / (b - a) * expected(i, b))

    options = sorted({plain, *(i for i in untested if in_window(i, lo, hi))})
    scored = [(cost(i, lo, hi), i) for i in options]
    best = min(c for c, _ in scored)
    if cost(plain, lo, hi) <= best + 1e-9:
        return CutChoice(plain, plain)
    chosen = min((i for c, i in scored if c <= best + 1e-9), key=lambda i: (abs(i - plain), i))
    return CutChoice(chosen, plain, "built" if new(plain, lo, hi) and not new(chosen, lo, hi) else "fewer builds")


def part_sizes(m: int, parts: int) -> list[int]:
    """How ``parts - 1`` cuts split ``m`` possible first-bad positions for the fewest rounds on
    average: the root split of a complete ``parts``-ary tree. Every outcome is still resolved within
    ceil(log_parts m) rounds, and as many as possible a round earlier: equal thirds of 6 (2+2+2) need
    a second round for every outcome, 3+2+1 resolves one at once (mean 1.83 rounds instead of 2); for
    100 positions and 2 cuts per round the mean is 4.29 rounds instead of 4.38 for equal thirds. Binary
    search (2 parts) keeps git's midpoint, which is already optimal."""
    if m <= parts:
        return [1] * m + [0] * (parts - m)
    full = 1  # parts ** floor(log_parts m)
    while full * parts <= m:
        full *= parts
    base, extra = full // parts, m - full
    sizes = []
    for _ in range(parts):
        gain = min(extra, base * (parts - 1))
        sizes.append(base + gain)
        extra -= gain
    return sizes


def approx_halfway(weight: int, nr: int) -> bool:
    """git's ``approx_halfway``: within one of the half (2 and 3 are halfway of 5), or within ~0.1%
    of it for a large ``nr``."""
    diff = 2 * weight - nr
    return abs(diff) <= 1 or abs(diff) < nr // 1024


def git_line_choice(span: int) -> int:
    """Which of ``span`` suspects on a line (1 = just above the last good commit, ``span`` = the first
    known bad one) git's ``find_bisection`` picks: the first, counting up, whose weight is within one
    of the half (``approx_halfway``) -- the lowest commit's weight is never tested for it, so of 3
    it is the 2nd -- else the best split (the 1st of 2)."""
    return next((w for w in range(2, span + 1) if approx_halfway(w, span)), 1)


class GateSearch:
    """Bisection state of one gate over candidates ``0 .. n-1`` (``n-1`` is BAD, assumed bad)."""

    def __init__(self, gate: str, n: int, *, last_good: int = GOOD_INDEX) -> None:
        if n < 1:
            raise ValueError("a search needs at least one candidate (BAD itself)")
        if not GOOD_INDEX <= last_good < n - 1:
            raise ValueError(f"last_good {last_good} must lie in [-1, {n - 2}]")
        self.gate = gate
        self.n = n
        self.floor = last_good
        self.verdicts: dict[int, Verdict] = {}
        self.last_choice: CutChoice | None = None  # the last propose's cut, when a chooser made it

    def record(self, index: int, verdict: Verdict, *, override: bool = False) -> None:
        if not GOOD_INDEX <= index < self.n:
            raise IndexError(f"candidate index {index} outside [-1, {self.n - 1}]")
        if verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {verdict!r}")
        if override or index not in self.verdicts:
            self.verdicts[index] = verdict

    def bracket(self) -> tuple[int, int]:
        """``(lo, hi)``: the first bad commit lies in ``(lo, hi]``."""
        goods = [i for i, v in self.verdicts.items() if v == "good" and i >= self.floor]
        lo = max(goods, default=self.floor)
        bads = [i for i, v in self.verdicts.items() if v == "bad" and i > lo]
        hi = min(bads, default=self.n - 1)
        return lo, hi

    def untested_inside(self) -> list[int]:
        lo, hi = self.bracket()
        return [i for i in range(lo + 1, hi) if i not in self.verdicts]

    @property
    def done(self) -> bool:
        return not self.untested_inside()

    def propose(self, k: int = 1, *, taken: Iterable[int] = (), chooser: CutChooser | None = None) -> list[int]:
        """Up to ``k`` untested indices cutting the bracket into ``k+1`` parts (``part_sizes``; the
        midpoint for k = 1), each the nearest untested index to its ideal place. With a ``chooser`` (k = 1
        only) the cut may move (``build_aware_cut``); ``last_choice`` says where and why."""
        self.last_choice = None
        plain = self._propose(k, taken)
        if chooser is None or k != 1 or len(plain) != 1:
            return plain
        lo, hi = self.bracket()
        free = sorted(set(self.untested_inside()) - set(taken))
        self.last_choice = chooser(lo, hi, plain[0], free)
        return [self.last_choice.index]

    def _propose(self, k: int, taken: Iterable[int]) -> list[int]:
        lo, hi = self.bracket()
        free = set(self.untested_inside()) - set(taken)
        chosen: list[int] = []
        if k == 1 and len(free) == hi - lo - 1 and free:
            return [lo + git_line_choice(hi - lo)]  # nothing untestable or taken inside: git's own pick
        if k == 1:
            targets: list[float] = [lo + (hi - lo) / 2]
        else:
            sizes = part_sizes(hi - lo, k + 1)
            targets = [lo + sum(sizes[:part]) for part in range(1, k + 1)]
        for target in targets:
            if not free:
                break
            nearest = min(free, key=lambda i: (abs(i - target), i))
            chosen.append(nearest)
            free.discard(nearest)
        return sorted(chosen)

    def remaining_steps(self, k: int = 1) -> int:
        """Rounds of ``k`` judgements still needed at most (untestable commits aside)."""
        lo, hi = self.bracket()
        span, steps = hi - lo, 0
        while span > 1:
            span = -(-span // (k + 1))
            steps += 1
        return steps

    def outcome(self) -> SearchOutcome:
        lo, hi = self.bracket()
        skipped = tuple(i for i in range(lo + 1, hi) if self.verdicts.get(i) == "skip")
        return SearchOutcome(gate=self.gate, first_bad=hi, last_good=lo, candidates=(*skipped, hi))


class MultiGateSearch:
    """Per-gate searches over one candidate list that advance together and share judgements."""

    def __init__(self, gates: Sequence[str], n: int, *, last_good: Mapping[str, int] | None = None) -> None:
        floors = dict(last_good or {})
        self.searches = {g: GateSearch(g, n, last_good=floors.get(g, GOOD_INDEX)) for g in gates}
        self.choices: dict[int, CutChoice] = {}  # the last propose's cuts a chooser made, by index

    @property
    def done(self) -> bool:
        return all(s.done for s in self.searches.values())

    def record(self, index: int, verdicts: Mapping[str, Verdict], *, override: bool = False) -> None:
        """One judgement of ``index``: a verdict for each gate it measured (absent gates are skip)."""
        for gate, search in self.searches.items():
            search.record(index, verdicts.get(gate, "skip"), override=override)

    def propose(self, k: int = 1, *, chooser: CutChooser | None = None) -> list[int]:
        """Up to ``k`` indices for the next round. The widest open brackets choose first; gates with
        the same bracket propose the same points, so they share every judgement. ``choices``: for each
        index proposed by a ``chooser`` (k = 1), where it cut and why."""
        open_searches = [s for s in self.searches.values() if not s.done]
        open_searches.sort(key=lambda s: (-(s.bracket()[1] - s.bracket()[0]), s.gate))
        chosen: list[int] = []
        proposals = {s.gate: s.propose(k, chooser=chooser) for s in open_searches}
        made = {s.last_choice.index: s.last_choice for s in reversed(open_searches) if s.last_choice is not None}
        while len(chosen) < k and any(proposals.values()):
            for search in open_searches:
                queue = [i for i in proposals[search.gate] if i not in chosen]
                proposals[search.gate] = queue[1:]
                if queue and len(chosen) < k:
                    chosen.append(queue[0])
        self.choices = {i: made[i] for i in chosen if i in made}
        return sorted(chosen)

    def remaining_steps(self, k: int = 1) -> int:
        return max((s.remaining_steps(k) for s in self.searches.values()), default=0)

    def candidates_left(self) -> int:
        """Distinct untested commits inside any open bracket (what the progress line shows)."""
        left: set[int] = set()
        for search in self.searches.values():
            left.update(search.untested_inside())
        return len(left)

    def outcomes(self) -> dict[str, SearchOutcome]:
        return {g: s.outcome() for g, s in self.searches.items()}


def majority(votes: Sequence[Verdict], repeat: int) -> Verdict | None:
    """The verdict of ``repeat`` votes once it is settled, else None (judge again).

    Adaptive: stops as soon as one verdict holds a strict majority of ``repeat`` (so ``--repeat 3``
    spends 2 judgements when they agree). After ``repeat`` votes with no majority, the candidate is
    untestable (``skip``): a coin that will not land is no evidence either way."""
    need = repeat // 2 + 1
    for verdict in VERDICTS:
        if votes.count(verdict) >= need:
            return verdict
    if len(votes) >= repeat:
        return "skip"
    return None


def flake_rate(votes: Sequence[Verdict], settled: Verdict) -> float:
    """Share of votes that disagree with the settled verdict."""
    if not votes:
        return 0.0
    return sum(1 for v in votes if v != settled) / len(votes)


JudgeFn = Callable[[int], Mapping[str, Verdict]]


@dataclass(frozen=True)
class SimulatedRun:
    """Result of ``simulate``: outcomes, judged indices in order, rounds used."""

    outcomes: dict[str, SearchOutcome]
    judged: tuple[int, ...]
    rounds: int


def simulate(gates: Sequence[str], n: int, judge: JudgeFn, *, k: int = 1) -> SimulatedRun:
    """Drive a ``MultiGateSearch`` to completion against a verdict function (tests, benchmarks)."""
    search = MultiGateSearch(gates, n)
    judged: list[int] = []
    rounds = 0
    while not search.done:
        batch = search.propose(k)
        rounds += 1
        for index in batch:
            search.record(index, judge(index))
            judged.append(index)
    return SimulatedRun(outcomes=search.outcomes(), judged=tuple(judged), rounds=rounds)
