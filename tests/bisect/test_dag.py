"""The graph bisection (vtbisect.dag), pure: on generated commit graphs with merges, against the
truth of which commits contain the culprit."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from vtbisect.dag import DagSearch, MultiGateDag


@st.composite
def graphs(draw):
    """Commits 0..n-1, each with its previous commit as first parent and sometimes an older second
    parent (a merge); BAD is the last. Returns (ids oldest first, parents)."""
    n = draw(st.integers(min_value=2, max_value=60))
    parents: dict[str, list[str]] = {"c0": []}
    for i in range(1, n):
        first = draw(st.integers(min_value=max(0, i - 3), max_value=i - 1))
        ps = [f"c{first}"]
        if i >= 2 and draw(st.booleans()):
            second = draw(st.integers(min_value=0, max_value=i - 1))
            if second != first:
                ps.append(f"c{second}")
        parents[f"c{i}"] = ps
    bad = f"c{n - 1}"
    ancestors = _ancestors(parents, bad)
    ids = [f"c{i}" for i in range(n) if f"c{i}" in ancestors]
    return ids, parents


def _ancestors(parents, sha):
    seen, stack = set(), [sha]
    while stack:
        item = stack.pop()
        if item not in seen:
            seen.add(item)
            stack.extend(parents.get(item, []))
    return seen


def run(search: DagSearch, truth) -> list[str]:
    judged = []
    while not search.done:
        (sha,) = search.propose(1)
        search.record(sha, truth(sha))
        judged.append(sha)
    return judged


@settings(max_examples=150, deadline=None)
@given(graphs(), st.data())
def test_the_first_bad_commit_is_found_on_any_graph(graph, data):
    ids, parents = graph
    culprit = data.draw(st.sampled_from(ids))
    # A commit is bad when it contains the culprit; the root (c0) is GOOD's side unless it is the culprit.
    search = DagSearch(ids, parents, ids[-1])
    run(search, lambda sha: "bad" if culprit in _ancestors(parents, sha) else "good")
    assert search.outcome().first_bad == culprit and search.outcome().exact


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=2, max_value=300), st.data())
def test_a_line_costs_what_binary_search_costs(n, data):
    ids = [f"c{i}" for i in range(n)]
    parents = {f"c{i}": [f"c{i - 1}"] if i else [] for i in range(n)}
    culprit = data.draw(st.integers(min_value=0, max_value=n - 1))
    search = DagSearch(ids, parents, ids[-1])
    judged = run(search, lambda sha: "bad" if int(sha[1:]) >= culprit else "good")
    assert search.outcome().first_bad == f"c{culprit}"
    assert len(judged) <= math.ceil(math.log2(n))


def test_a_commit_on_a_merged_branch_is_found_without_a_search_per_merge():
    # main: m0 m1 m2 M(merges t2) m3 ; topic from m0: t0 t1 t2 ; the culprit is t1.
    parents = {"m0": [], "m1": ["m0"], "m2": ["m1"], "t0": ["m0"], "t1": ["t0"], "t2": ["t1"],
               "M": ["m2", "t2"], "m3": ["M"]}
    ids = ["m0", "m1", "m2", "t0", "t1", "t2", "M", "m3"]
    bad_set = {"t1", "t2", "M", "m3"}
    search = DagSearch(ids[1:], parents, "m3")  # m0 is GOOD
    judged = run(search, lambda sha: "bad" if sha in bad_set else "good")
    assert search.outcome().first_bad == "t1"
    assert len(judged) <= 3  # ceil(log2 7 suspects)


def test_an_untestable_neighbourhood_gives_the_set():
    ids = [f"c{i}" for i in range(10)]
    parents = {f"c{i}": [f"c{i - 1}"] if i else [] for i in range(10)}
    skip = {"c4", "c5"}
    search = DagSearch(ids, parents, "c9")
    run(search, lambda sha: "skip" if sha in skip else ("bad" if int(sha[1:]) >= 5 else "good"))
    outcome = search.outcome()
    assert not outcome.exact and set(outcome.candidates) == {"c4", "c5", "c6"}


def test_gates_share_judgements_on_one_graph():
    ids = [f"c{i}" for i in range(16)]
    parents = {f"c{i}": [f"c{i - 1}"] if i else [] for i in range(16)}
    multi = MultiGateDag(["a", "b"], ids, parents, "c15")
    judged = 0
    while not multi.done:
        for sha in multi.propose(1):
            index = int(sha[1:])
            multi.record(sha, {"a": "bad" if index >= 6 else "good", "b": "bad" if index >= 6 else "good"})
            judged += 1
    assert {g: o.first_bad for g, o in multi.outcomes().items()} == {"a": "c6", "b": "c6"}
    assert judged <= 4
