"""The pure search, on fake verdicts: no git, no processes."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vtbisect.search import GateSearch, MultiGateSearch, majority, part_sizes, simulate


def monotone(first_bad: int):
    return lambda i: {"g": "bad" if i >= first_bad else "good"}


@given(n=st.integers(1, 300), data=st.data())
@settings(max_examples=300, deadline=None)
def test_binary_search_finds_the_true_first_bad_within_log2_judgements(n: int, data: st.DataObject) -> None:
    first_bad = data.draw(st.integers(0, n - 1))
    run = simulate(["g"], n, monotone(first_bad))
    assert run.outcomes["g"].first_bad == first_bad
    assert run.outcomes["g"].exact
    assert len(run.judged) <= math.ceil(math.log2(n)) if n > 1 else len(run.judged) == 0


@given(n=st.integers(1, 300), k=st.integers(2, 5), data=st.data())
@settings(max_examples=300, deadline=None)
def test_multisection_rounds_are_bounded_by_log_base_k_plus_1(n: int, k: int, data: st.DataObject) -> None:
    first_bad = data.draw(st.integers(0, n - 1))
    run = simulate(["g"], n, monotone(first_bad), k=k)
    assert run.outcomes["g"].first_bad == first_bad
    assert run.rounds <= math.ceil(math.log(n, k + 1) - 1e-9) + (1 if n > 1 else 0)


@given(n=st.integers(2, 200), data=st.data())
@settings(max_examples=200, deadline=None)
def test_untestable_commits_never_hide_the_culprit(n: int, data: st.DataObject) -> None:
    first_bad = data.draw(st.integers(0, n - 1))
    skipped = data.draw(st.sets(st.integers(0, n - 2), max_size=n // 2))

    def judge(i: int):
        return {"g": "skip" if i in skipped else ("bad" if i >= first_bad else "good")}

    outcome = simulate(["g"], n, judge).outcomes["g"]
    assert first_bad in outcome.candidates
    # Exact unless the commits around the boundary were untestable.
    if first_bad not in skipped and (first_bad - 1 not in skipped or first_bad == 0):
        assert outcome.candidates == (first_bad,)
    assert all(c in skipped or c == outcome.first_bad for c in outcome.candidates)


def test_a_skipped_midpoint_is_replaced_by_its_nearest_neighbour() -> None:
    search = GateSearch("g", 12)
    assert search.propose() == [5]
    search.record(5, "skip")
    assert search.propose() == [4]


def test_boundary_inside_an_untestable_window_reports_the_set() -> None:
    outcome = simulate(["g"], 12, lambda i: {"g": "skip" if 4 <= i <= 7 else ("bad" if i >= 6 else "good")})
    assert outcome.outcomes["g"].candidates == (4, 5, 6, 7, 8)
    assert not outcome.outcomes["g"].exact


def test_gates_with_one_culprit_share_every_judgement() -> None:
    shared = simulate(["a", "b", "c"], 64, lambda i: dict.fromkeys("abc", "bad" if i >= 40 else "good"))
    single = simulate(["a"], 64, lambda i: {"a": "bad" if i >= 40 else "good"})
    assert shared.judged == single.judged
    assert {o.first_bad for o in shared.outcomes.values()} == {40}


def test_gates_with_different_culprits_are_all_found_in_one_search() -> None:
    firsts = {"a": 3, "b": 50, "c": 50}
    run = simulate(list(firsts), 64, lambda i: {g: "bad" if i >= f else "good" for g, f in firsts.items()})
    assert {g: o.first_bad for g, o in run.outcomes.items()} == firsts
    assert len(set(run.judged)) == len(run.judged)
    assert len(run.judged) <= 2 * math.ceil(math.log2(64))


def test_an_overridden_false_bad_reopens_the_range_above_it() -> None:
    search = GateSearch("g", 20)
    for index, verdict in [(9, "good"), (14, "bad"), (11, "bad"), (10, "good")]:
        search.record(index, verdict)
    assert search.outcome().first_bad == 11
    search.record(11, "good", override=True)  # a confirmation disproved the flaky bad
    assert search.bracket() == (11, 14)
    assert search.propose() == [13]  # 12, 13 and 14 are left: git bisect picks the 2nd of 3


def test_a_verdict_is_not_replaced_without_override() -> None:
    search = GateSearch("g", 5)
    search.record(2, "bad")
    search.record(2, "good")
    assert search.verdicts[2] == "bad"


@pytest.mark.parametrize(
    ("votes", "repeat", "settled"),
    [
        (["good"], 1, "good"),
        (["good", "good"], 3, "good"),
        (["bad", "good"], 3, None),
        (["bad", "good", "good"], 3, "good"),
        (["bad", "bad"], 3, "bad"),
        (["bad", "good", "skip"], 3, "skip"),
        (["good", "bad", "good", "bad"], 4, "skip"),
    ],
)
def test_adaptive_majority(votes: list, repeat: int, settled: str | None) -> None:
    assert majority(votes, repeat) == settled


def test_multigate_propose_is_capped_at_k() -> None:
    search = MultiGateSearch(["a", "b"], 100, last_good={"b": 49})
    assert len(search.propose(1)) == 1
    assert len(search.propose(3)) == 3


def test_invalid_inputs_are_refused() -> None:
    with pytest.raises(ValueError):
        GateSearch("g", 0)
    with pytest.raises(IndexError):
        GateSearch("g", 3).record(3, "bad")
    with pytest.raises(ValueError):
        GateSearch("g", 3).record(1, "maybe")  # type: ignore[arg-type]


def test_multisection_parts_keep_the_worst_case_and_minimise_the_mean_rounds() -> None:
    from functools import lru_cache

    @lru_cache(None)
    def best(m: int) -> float:  # fewest expected rounds to resolve m positions with 2 cuts per round
        if m <= 1:
            return 0.0
        if m <= 3:
            return 1.0
        return 1 + min((a * best(a) + b * best(b) + (m - a - b) * best(m - a - b)) / m
                       for a in range(1, m - 1) for b in range(1, m - a))

    @lru_cache(None)
    def ours(m: int) -> float:
        if m <= 1:
            return 0.0
        return 1 + sum(s * ours(s) for s in part_sizes(m, 3)) / m

    for m in range(1, 61):
        assert ours(m) == pytest.approx(best(m)), m
    for parts in (3, 4, 5):
        for m in range(1, 400):
            sizes = part_sizes(m, parts)
            assert len(sizes) == parts and sum(sizes) == m and all(s >= 0 for s in sizes)
            worst = math.ceil(math.log(m, parts) - 1e-9) if m > 1 else 0
            assert max(sizes) <= parts ** max(worst - 1, 0), (m, parts, sizes)
    # 6 positions: 3 + 2 + 1 settles one outcome in one round; equal thirds need two for all
    assert part_sizes(6, 3) == [3, 2, 1]
