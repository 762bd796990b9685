"""Bisection over a commit graph, as git's ``find_bisection`` does it: pure (no git, no processes), on
commit ids and their parents, tested against a brute-force oracle on generated graphs.

The set still suspected holds the candidates that are ancestors of (or equal to) the newest known-bad
commit and are not ancestors of any known-good one. The next commit to judge is the one that best
halves it: for each unjudged, testable commit ``c``, ``reach(c)`` counts the suspected commits it
reaches (its ancestors in the set, itself included); a verdict of bad keeps those, good removes them,
so the best commit maximises ``min(reach(c), size - reach(c))``. Merges are no special case: a commit
on a merged branch is just a commit whose reach does not include the mainline before the merge.

Reachability is a bitset per commit (a Python int over the candidates in topological order), so a
graph of a few thousand candidates costs a few milliseconds per proposal."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from vtbisect.search import Verdict


@dataclass(frozen=True)
class DagOutcome:
    """The first bad commit, or the set it must be one of (untestable commits in the way)."""

    first_bad: str
    candidates: tuple[str, ...]  # (first_bad,) when exact

    @property
    def exact(self) -> bool:
        return len(self.candidates) == 1


class DagSearch:
    """One gate's bisection over ``candidates`` (every commit of ``GOOD..BAD``, ``bad`` among them),
    with ``parents`` giving each candidate's parents (parents outside the candidates are known good)."""

    def __init__(self, candidates: Sequence[str], parents: Mapping[str, Sequence[str]], bad: str) -> None:
        if bad not in candidates:
            raise ValueError(f"BAD {bad} is not one of the candidates")
        self.order = _topological(candidates, parents)
        self.index = {sha: i for i, sha in enumerate(self.order)}
        self.reach: list[int] = []
        for sha in self.order:  # parents come first in topological order
            bits = 1 << self.index[sha]
            for parent in parents.get(sha, ()):
                if parent in self.index:
                    bits |= self.reach[self.index[parent]]
            self.reach.append(bits)
        self.bad = bad
        self.verdicts: dict[str, Verdict] = {bad: "bad"}

    def record(self, sha: str, verdict: Verdict, *, override: bool = False) -> None:
        if sha not in self.index:
            raise KeyError(f"{sha} is not a candidate")
        if override or sha not in self.verdicts:
            self.verdicts[sha] = verdict

    def suspects(self) -> int:
        """Bitset of the commits that can still be the first bad one: ancestors of every bad commit
        (the first bad one is an ancestor of each), ancestors of no good one."""
        bits = (1 << len(self.order)) - 1
        for sha, verdict in self.verdicts.items():
            if verdict == "bad":
                bits &= self.reach[self.index[sha]]
            elif verdict == "good":
                bits &= ~self.reach[self.index[sha]]
        return bits

    def _first_known_bad(self, suspects: int) -> str:
        """The bad suspect reaching the fewest suspects (BAD when verdicts contradict each other)."""
        bads = [sha for sha, v in self.verdicts.items() if v == "bad" and suspects >> self.index[sha] & 1]
        if not bads:
            return self.bad
        return min(bads, key=lambda sha: (bin(self.reach[self.index[sha]] & suspects).count("1"), self.index[sha]))

    def untested(self) -> list[str]:
        suspects = self.suspects()
        return [sha for i, sha in enumerate(self.order) if suspects >> i & 1 and sha not in self.verdicts]

    @property
    def done(self) -> bool:
        return not self.untested()

    def propose(self, k: int = 1, *, taken: Iterable[str] = ()) -> list[str]:
        """Up to ``k`` commits, best halving first (ties: the oldest in topological order)."""
        suspects = self.suspects()
        size = bin(suspects).count("1")
        free = [sha for sha in self.untested() if sha not in set(taken)]
        scored = []
        for sha in free:
            reach = bin(self.reach[self.index[sha]] & suspects).count("1")
            scored.append((-min(reach, size - reach), self.index[sha], sha))
        return [sha for _, _, sha in sorted(scored)[:k]]

    def outcome(self) -> DagOutcome:
        suspects = self.suspects()
        top = self._first_known_bad(suspects)
        inside = self.reach[self.index[top]] & suspects
        skipped = tuple(sha for i, sha in enumerate(self.order)
                        if inside >> i & 1 and self.verdicts.get(sha) == "skip")
        return DagOutcome(first_bad=top, candidates=(*skipped, top))


def _topological(candidates: Sequence[str], parents: Mapping[str, Sequence[str]]) -> list[str]:
    """Parents before children (Kahn's algorithm over the candidates; input order breaks ties)."""
    inside = set(candidates)
    waiting = {sha: sum(1 for p in parents.get(sha, ()) if p in inside) for sha in candidates}
    children: dict[str, list[str]] = {sha: [] for sha in candidates}
    for sha in candidates:
        for parent in parents.get(sha, ()):
            if parent in inside:
                children[parent].append(sha)
    ready = [sha for sha in candidates if waiting[sha] == 0]
    order: list[str] = []
    position = {sha: i for i, sha in enumerate(candidates)}
    while ready:
        ready.sort(key=position.__getitem__)
        sha = ready.pop(0)
        order.append(sha)
        for child in children[sha]:
            waiting[child] -= 1
            if waiting[child] == 0:
                ready.append(child)
    if len(order) != len(candidates):
        raise ValueError("the parents form a cycle: not a commit graph")
    return order


class MultiGateDag:
    """Per-gate ``DagSearch``es over one graph that share judgements (as ``MultiGateSearch``)."""

    def __init__(self, gates: Sequence[str], candidates: Sequence[str], parents: Mapping[str, Sequence[str]],
                 bad: str) -> None:
        self.searches = {gate: DagSearch(candidates, parents, bad) for gate in gates}

    @property
    def done(self) -> bool:
        return all(s.done for s in self.searches.values())

    def record(self, sha: str, verdicts: Mapping[str, Verdict]) -> None:
        for gate, search in self.searches.items():
            search.record(sha, verdicts.get(gate, "skip"))

    def propose(self, k: int = 1) -> list[str]:
        chosen: list[str] = []
        for search in self.searches.values():
            if not search.done:
                chosen += search.propose(k - len(chosen), taken=chosen)
            if len(chosen) >= k:
                break
        return chosen

    def outcomes(self) -> dict[str, DagOutcome]:
        return {gate: s.outcome() for gate, s in self.searches.items()}
