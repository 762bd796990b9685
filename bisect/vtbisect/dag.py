"""Bisection over a commit graph, as git's ``find_bisection`` does it: pure (no git, no processes), on
commit ids and their parents, tested against a brute-force oracle on generated graphs.

The set still suspected holds the candidates that are ancestors of (or equal to) the newest known-bad
commit and are not ancestors of any known-good one. The next commit to judge is the one that best
halves it: for each unjudged, testable commit ``c``, ``reach(c)`` counts the suspected commits it
reaches (its ancestors in the set, itself included); a verdict of bad keeps those, good removes them,
so the best commit maximises ``min(reach(c), size - reach(c))``. Merges are no special case: a commit
on a merged branch is just a commit whose reach does not include the mainline before the merge.

Among commits that halve equally well, the choice is git's own (``find_bisection`` in git's bisect.c),
so that a run judges the commits ``git bisect run`` would: git lists the suspects as its revision walk
from the newest bad commit yields them (newest committer date first; among equal dates, first seen
first), oldest first; returns the first merge, then the first commit in the order its weight is
filled in, that is within one of the half (``approx_halfway``); else the first commit of the list at
the best distance. Once any commit has been judged untestable git ranks by distance, then commit id,
and steps away from an untestable best commit with its fixed pseudo-random ``skip_away``; so does this.

With ``built`` (build-aware cut points, ``vtbisect.search.build_aware_cut``), a one-at-a-time proposal
that would need a build moves to the best-halving commit whose build inputs are already built, if its
split of the suspects stays within ``[CUT_TOLERANCE, 1 - CUT_TOLERANCE]``.

Reachability is a bitset per commit (a Python int over the candidates in topological order), so a
graph of a few thousand candidates costs a few milliseconds per proposal."""

from __future__ import annotations

import heapq
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from vtbisect.search import CUT_TOLERANCE, WINDOW_CAP, Verdict, approx_halfway

Built = Callable[[str], bool]  # whether a commit's build inputs are already built


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
    with ``parents`` giving each candidate's parents (parents outside the candidates are known good)
    and ``dates`` their committer dates (git's order among equally good choices; absent: all equal)."""

    def __init__(self, candidates: Sequence[str], parents: Mapping[str, Sequence[str]], bad: str,
                 dates: Mapping[str, int] | None = None) -> None:
        if bad not in candidates:
            raise ValueError(f"BAD {bad} is not one of the candidates")
        self.order = _topological(candidates, parents)
        self.index = {sha: i for i, sha in enumerate(self.order)}
        self.parent_index = [tuple(self.index[p] for p in parents.get(sha, ()) if p in self.index)
                             for sha in self.order]
        self.dates = [int((dates or {}).get(sha, 0)) for sha in self.order]
        self.reach: list[int] = []
        for sha in self.order:  # parents come first in topological order
            bits = 1 << self.index[sha]
            for parent in parents.get(sha, ()):
                if parent in self.index:
                    bits |= self.reach[self.index[parent]]
            self.reach.append(bits)
        self.bad = bad
        self.verdicts: dict[str, Verdict] = {bad: "bad"}
        self.last_move: tuple[str, str, str] | None = None  # the last propose's move off git's choice

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

    def propose(self, k: int = 1, *, taken: Iterable[str] = (), built: Built | None = None) -> list[str]:
        """Up to ``k`` commits: git's choice first (``git_choice``), then the next best halving ones
        (ties: the oldest in topological order). With ``built`` and k = 1, git's choice gives way to the
        best-halving built commit within the tolerance (``last_move``: (chosen, git's, reason))."""
        self.last_move = None
        taken = set(taken)
        proposed = self._propose(k, taken)
        if built is None or k != 1 or not proposed or built(proposed[0]):
            return proposed
        suspects = self.suspects()
        size = bin(suspects).count("1")
        balance = []
        for sha in self.untested():
            reach = bin(self.reach[self.index[sha]] & suspects).count("1")
            if min(reach, size - reach) >= CUT_TOLERANCE * size:
                balance.append((-min(reach, size - reach), self.index[sha], sha))
        for _, _, sha in sorted(balance)[:WINDOW_CAP]:
            if sha not in taken and built(sha):
                self.last_move = (sha, proposed[0], "built")
                return [sha]
        return proposed

    def _propose(self, k: int, taken: Iterable[str]) -> list[str]:
        suspects = self.suspects()
        size = bin(suspects).count("1")
        taken = set(taken)
        free = [sha for sha in self.untested() if sha not in taken]
        if not free:
            return []
        chosen = self.git_choice()
        first = [chosen] if chosen in free else []
        scored = []
        for sha in free:
            if sha not in first:
                reach = bin(self.reach[self.index[sha]] & suspects).count("1")
                scored.append((-min(reach, size - reach), self.index[sha], sha))
        return (first + [sha for _, _, sha in sorted(scored)])[:k]

    def git_list(self) -> list[int]:
        """The suspects as git's ``find_bisection`` lists them (indices into ``order``): its revision
        walk from the newest bad commit (newest committer date first; equal dates in the order first
        seen, parents in parent order) yields them newest first; the list is that, reversed."""
        suspects = self.suspects()
        top = self.index[self._first_known_bad(suspects)]
        queue, seen, seq, walked = [(-self.dates[top], 0, top)], {top}, 1, []
        while queue:
            _, _, i = heapq.heappop(queue)
            walked.append(i)
            for parent in self.parent_index[i]:
                if suspects >> parent & 1 and parent not in seen:
                    seen.add(parent)
                    heapq.heappush(queue, (-self.dates[parent], seq, parent))
                    seq += 1
        walked.reverse()
        return walked

    def git_choice(self) -> str | None:
        """The commit ``git bisect`` would check out next, or None when it would name the first bad
        commit (nothing left to judge)."""
        if not self.untested():
            return None
        suspects = self.suspects()
        listed = self.git_list()
        top = listed[-1]
        nr = len(listed)
        weight = {i: bin(self.reach[i] & suspects).count("1") for i in listed}
        if any(v == "skip" for v in self.verdicts.values()):
            return self.order[self._git_skip_choice(listed, weight, top)]
        inside = {i: [p for p in self.parent_index[i] if suspects >> p & 1] for i in listed}
        for i in listed:  # merges: their weight is counted first
            if len(inside[i]) >= 2 and approx_halfway(weight[i], nr):
                return self.order[i]
        known = {i for i in listed if len(inside[i]) != 1}
        while len(known) < nr:  # then single-parent commits, as their parent's weight becomes known
            for i in listed:
                if i not in known and inside[i][0] in known:
                    known.add(i)
                    if approx_halfway(weight[i], nr):
                        return self.order[i]
        best, best_distance = listed[0], -1
        for i in listed:
            distance = min(weight[i], nr - weight[i])
            if distance > best_distance:
                best, best_distance = i, distance
        return self.order[best]

    def _git_skip_choice(self, listed: list[int], weight: Mapping[int, int], top: int) -> int:
        """git with untestable commits: best distance first, then commit id; an untestable best is
        stepped away from (``filter_skipped`` and ``skip_away``)."""
        nr = len(listed)
        ranked = sorted(listed, key=lambda i: (-min(weight[i], nr - weight[i]), self.order[i]))
        skipped = {i for i in listed if self.verdicts.get(self.order[i]) == "skip"}
        if ranked[0] not in skipped:
            return ranked[0]
        kept = [i for i in ranked if i not in skipped]
        count = len(kept)
        prn = _git_prn(count)
        at = (count * prn // PRN_MODULO) * _git_sqrti(prn) // _git_sqrti(PRN_MODULO)
        if kept[at] != top:
            return kept[at]
        return kept[at - 1] if at > 0 else kept[0]

    def outcome(self) -> DagOutcome:
        suspects = self.suspects()
        top = self._first_known_bad(suspects)
        inside = self.reach[self.index[top]] & suspects
        skipped = tuple(sha for i, sha in enumerate(self.order)
                        if inside >> i & 1 and self.verdicts.get(sha) == "skip")
        return DagOutcome(first_bad=top, candidates=(*skipped, top))


PRN_MODULO = 32768


def _git_prn(count: int) -> int:
    """git's ``get_prn``: a fixed pseudo-random number from ``count`` (unsigned 32-bit arithmetic)."""
    count = (count * 1103515245 + 12345) & 0xFFFFFFFF
    return (count // 65536) % PRN_MODULO


def _f32(value: float) -> float:
    return struct.unpack("f", struct.pack("f", value))[0]


def _git_sqrti(value: int) -> int:
    """git's ``sqrti``: Newton's method in single-precision floats, truncated."""
    if not value:
        return 0
    x = _f32(value)
    while True:
        y = _f32(_f32(x + _f32(_f32(value) / x)) / 2)
        d = y - x if y > x else x - y
        x = y
        if d < 0.5:
            return int(x)


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
                 bad: str, dates: Mapping[str, int] | None = None) -> None:
        self.searches = {gate: DagSearch(candidates, parents, bad, dates) for gate in gates}
        self.moves: list[tuple[str, str, str]] = []

    @property
    def done(self) -> bool:
        return all(s.done for s in self.searches.values())

    def record(self, sha: str, verdicts: Mapping[str, Verdict]) -> None:
        for gate, search in self.searches.items():
            search.record(sha, verdicts.get(gate, "skip"))

    def propose(self, k: int = 1, *, built: Built | None = None) -> list[str]:
        """As ``MultiGateSearch.propose``; ``moves``: the proposals ``built`` moved, (chosen, git's, why)."""
        chosen: list[str] = []
        self.moves = []
        for search in self.searches.values():
            if not search.done:
                chosen += search.propose(k - len(chosen), taken=chosen, built=built)
                if search.last_move is not None:
                    self.moves.append(search.last_move)
            if len(chosen) >= k:
                break
        return chosen

    def outcomes(self) -> dict[str, DagOutcome]:
        return {gate: s.outcome() for gate, s in self.searches.items()}
