"""Merges at git's cost: a culprit on a branch merged into a branch that was merged into main is found
by one graph bisection over what the merge brought in (no search per merge level), on a real
history, next to git bisect run on a clone of it."""

from __future__ import annotations

import subprocess


def nested_merge_history(make_history, kit):
    """main: base, 6 commits, merge of topic, 4 commits; topic: 5 commits, a merge of sub, 3 commits;
    sub: 6 commits, the culprit 4th. Returns (repo, good, culprit)."""
    repo = make_history()
    good = repo.commit({"a.txt": "ok\n"}, "base")
    repo.filler(3, "main")
    kit.git(repo.path, "checkout", "-q", "-b", "topic")
    repo.filler(5, "topic")
    kit.git(repo.path, "checkout", "-q", "-b", "sub")
    repo.filler(3, "sub")
    culprit = repo.commit({"a.txt": "bad\n"}, "sub: break a")
    repo.filler(2, "sub")
    kit.git(repo.path, "checkout", "-q", "topic")
    repo.filler(1, "topic-late")
    kit.git(repo.path, "merge", "-q", "--no-ff", "-m", "merge sub into topic", "sub")
    repo.filler(3, "topic-after")
    kit.git(repo.path, "checkout", "-q", "main")
    repo.filler(3, "main-late")
    kit.git(repo.path, "merge", "-q", "--no-ff", "-m", "merge topic", "topic")
    repo.filler(4, "after")
    return repo, good, culprit


def git_bisect_steps(kit, repo, good: str, tmp_path) -> tuple[str, int]:
    clone = tmp_path / "git-clone"
    kit.git(tmp_path, "clone", "-q", str(repo.path), str(clone))
    kit.git(clone, "bisect", "start", "HEAD", good)
    done = subprocess.run(["git", "-C", str(clone), "bisect", "run", "sh", "-c", "grep -q bad a.txt && exit 1; exit 0"],
                          capture_output=True, text=True, check=True)
    first_bad = next(line.split()[0] for line in done.stdout.splitlines() if "is the first bad commit" in line)
    return first_bad, done.stdout.count("running")


def test_a_culprit_two_merges_deep_costs_about_what_git_bisect_costs(make_history, kit, vtbisect, tmp_path):
    repo, good, culprit = nested_merge_history(make_history, kit)
    git_first_bad, git_steps = git_bisect_steps(kit, repo, good, tmp_path)
    assert git_first_bad == culprit

    ran = vtbisect(repo.path, f"{good}..HEAD", "--", "sh", "-c", "grep -q bad a.txt && exit 1; exit 0")
    assert ran.code == 1, ran.stderr
    (found,) = ran.culprits
    assert found["commit"] == culprit
    assert found["note"].startswith("on the branch merged by ")
    assert found["parent"] == kit.git(repo.path, "rev-parse", f"{culprit}^")
    phases = [step["phase"] for step in ran.record["steps"]]
    assert any(note.startswith("searched over the commit graph: ") for note in ran.record["notes"])
    # BAD and GOOD first, then the search; the parent-green proof of a culprit whose parent the
    # search only inferred is judged too (git bisect trusts all three): at most three more than git.
    assert ran.record["evaluations"] <= git_steps + 3, (ran.record["evaluations"], git_steps, phases)

    # --first-parent keeps to the mainline: the merge of topic is the culprit there.
    mainline = vtbisect(repo.path, f"{good}..HEAD", "--first-parent", "--", "sh", "-c",
                        "grep -q bad a.txt && exit 1; exit 0")
    assert mainline.culprits[0]["subject"] == "merge topic"


def test_along_the_line_a_merge_culprit_is_opened_by_one_graph_bisection(make_history, kit, vtbisect, tmp_path):
    # --all-culprits searches along the first-parent line (its reverts walk it); the merge culprit found
    # there is opened by a graph bisection over what it brought in, nested merge included.
    repo, good, culprit = nested_merge_history(make_history, kit)
    ran = vtbisect(repo.path, f"{good}..HEAD", "--all-culprits", "--", "sh", "-c",
                   "grep -q bad a.txt && exit 1; exit 0")
    assert ran.code == 1, ran.stderr
    assert [c["commit"] for c in ran.culprits] == [culprit]
    assert ran.culprits[0]["note"].startswith("on the branch merged by ")
    assert ran.culprits[0]["parent"] == kit.git(repo.path, "rev-parse", f"{culprit}^")
    merge_steps = [s for s in ran.record["steps"] if s["phase"] == "merge"]
    merge = kit.git(repo.path, "log", "--format=%H", "--grep", "merge topic", "-1")
    brought = int(kit.git(repo.path, "rev-list", "--count", f"{merge}^..{merge}"))  # the merge and its side
    assert brought > 10
    # one bisection over what it brought (ceil(log2 brought)) plus the culprit's parent-green proof
    assert 1 <= len(merge_steps) <= (brought - 1).bit_length() + 1, (len(merge_steps), brought)
