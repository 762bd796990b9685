"""A bisection's commit graph: GOOD..BAD plus GOOD, read from the repository the report names
(``recipe.repo``) with ``git log --parents``, laid out in lanes (BAD's first-parent line in lane 0,
each side branch of a merge in a lane of its own). When the repository is gone (a report built
elsewhere) only the judged commits are known: they are drawn as a line, in the order judged, and the
page says so."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_COMMITS = 400  # past this the graph shows the judged commits only: a picture of 10 000 dots says nothing


@dataclass
class Node:
    commit: str
    parents: list[str]
    subject: str
    lane: int = 0
    column: int = 0


@dataclass
class Graph:
    nodes: list[Node]  # oldest first
    complete: bool  # the whole range from git (True) or the judged commits only (False)
    note: str = ""
    by_commit: dict[str, Node] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_commit = {n.commit: n for n in self.nodes}

    @property
    def lanes(self) -> int:
        return max((n.lane for n in self.nodes), default=0) + 1


def git_commits(repo: Path, good: str, bad: str) -> list[Node] | None:
    """Newest first, as git lists them; None when git cannot read the range there."""
    argv = ["git", "-C", str(repo), "log", "--topo-order", "--format=%H%x00%P%x00%s", f"{good}..{bad}"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
        base = subprocess.run(["git", "-C", str(repo), "log", "-1", "--format=%H%x00%P%x00%s", good],
                              capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0 or base.returncode != 0:
        return None
    nodes = []
    for line in (done.stdout + base.stdout).splitlines():
        commit, parents, subject = (line.split("\0") + ["", ""])[:3]
        if commit:
            nodes.append(Node(commit, parents.split(), subject))
    return nodes


def lay_out(nodes_newest_first: Sequence[Node], bad: str) -> list[Node]:
    """Lane 0 for BAD's first-parent line; a merge's other parents open new lanes, a lane's first
    parent continues it. Columns: oldest left (0) to newest right."""
    known = {n.commit: n for n in nodes_newest_first}
    lane: dict[str, int] = {}
    walk: str | None = bad
    while walk in known and walk not in lane:
        lane[walk] = 0
        parents = known[walk].parents
        walk = parents[0] if parents else None
    next_lane = 1
    for node in nodes_newest_first:
        if node.commit not in lane:
            lane[node.commit] = next_lane
            next_lane += 1
        for index, parent in enumerate(node.parents):
            if parent in known and parent not in lane:
                if index == 0:
                    lane[parent] = lane[node.commit]
                else:
                    lane[parent] = next_lane
                    next_lane += 1
    ordered = list(reversed(nodes_newest_first))
    for column, node in enumerate(ordered):
        node.lane = lane[node.commit]
        node.column = column
    return ordered


def bisect_graph(report: Mapping[str, Any]) -> Graph:
    """The graph for one vtbisect report."""
    subjects = {c["commit"]: c.get("subject", "") for c in report.get("culprits", [])}
    judged = list(dict.fromkeys(step["commit"] for step in report.get("steps", [])))
    repo = report.get("recipe", {}).get("repo")
    nodes = git_commits(Path(repo), report["good"], report["bad"]) if repo else None
    if nodes is not None and 0 < len(nodes) <= MAX_COMMITS:
        return Graph(lay_out(nodes, report["bad"]), True)
    if nodes is not None and nodes:
        note = (f"the range has {len(nodes)} commits; the graph shows the {len(judged)} judged ones "
                "in the order judged")
        subject_of = {n.commit: n.subject for n in nodes}
        subjects = {**subject_of, **subjects}
    else:
        note = (f"the repository {repo} could not be read here, so only the judged commits are drawn, "
                "in the order judged, without their parent links")
    line = [Node(commit, [], subjects.get(commit, "")) for commit in judged]
    for column, node in enumerate(line):
        node.column = column
    return Graph(line, False, note)
