"""Merges at git's cost: a culprit on a branch merged into a branch that was merged into main is found
by one graph bisection over what the merge brought in (no search per merge level), on a real
history, next to git bisect run on a clone of it."""

from __future__ import annotations

import subprocess

import pytest


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
    # GOOD first, then git's search, then the culprit's recheck (git bisect trusts both): two more than git.
    assert ran.record["evaluations"] == git_steps + 2, (ran.record["evaluations"], git_steps, phases)

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


def nested_merges_with_culprit(make_history, kit, where: str):
    """main with two topic merges, the first topic with a sub-branch merged into it, the second with
    none; the culprit (a.txt turns bad) is the 2nd commit of ``where``. Merges are dated by the clock
    (newer than every other commit), as a real history's merges often are not ordered by date."""
    repo = make_history()
    good = repo.commit({"a.txt": "ok\n"}, "base")
    culprit = None

    def line(label: str, count: int) -> None:
        nonlocal culprit
        for i in range(count):
            if label == where and i == 1:
                culprit = repo.commit({"a.txt": "bad\n"}, f"{label}: break a")
            else:
                repo.filler(1, label)

    line("main", 3)
    kit.git(repo.path, "checkout", "-q", "-b", "topic")
    line("topic", 4)
    kit.git(repo.path, "checkout", "-q", "-b", "sub")
    line("sub", 5)
    kit.git(repo.path, "checkout", "-q", "topic")
    line("topic-late", 2)
    kit.git(repo.path, "merge", "-q", "--no-ff", "-m", "merge sub into topic", "sub")
    kit.git(repo.path, "checkout", "-q", "main")
    line("main-late", 3)
    kit.git(repo.path, "merge", "-q", "--no-ff", "-m", "merge topic", "topic")
    kit.git(repo.path, "checkout", "-q", "-b", "second")
    line("second", 4)
    kit.git(repo.path, "checkout", "-q", "main")
    line("after", 3)
    kit.git(repo.path, "merge", "-q", "--no-ff", "-m", "merge second", "second")
    line("last", 2)
    return repo, good, culprit


GIT_LOGGING_JUDGE = "#!/bin/sh\ngit rev-parse HEAD >> {log}\ngrep -q bad a.txt && exit 1\nexit 0\n"


@pytest.mark.parametrize("where", ["sub", "topic-late", "main-late", "second", "last"])
def test_over_nested_merges_vtbisect_judges_what_git_bisect_run_judges(make_history, kit, vtbisect, tmp_path, where):
    repo, good, culprit = nested_merges_with_culprit(make_history, kit, where)
    clone = tmp_path / "git-clone"
    kit.git(tmp_path, "clone", "-q", str(repo.path), str(clone))
    log = tmp_path / "git-judged.txt"
    judge = tmp_path / "judge.sh"
    judge.write_text(GIT_LOGGING_JUDGE.format(log=log))
    judge.chmod(0o755)
    kit.git(clone, "bisect", "start", "HEAD", good)
    done = subprocess.run(["git", "-C", str(clone), "bisect", "run", str(judge)], capture_output=True, text=True,
                          check=True)
    assert f"{culprit} is the first bad commit" in done.stdout
    git_judged = log.read_text().split()

    judge.write_text(GIT_LOGGING_JUDGE.format(log=tmp_path / "vtbisect-judged.txt"))
    ran = vtbisect(repo.path, f"{good}..HEAD", "--no-cache", "--", str(judge))
    assert ran.code == 1, ran.stderr
    assert [c["commit"] for c in ran.culprits] == [culprit]
    steps = ran.record["steps"]
    # the search judges exactly the commits git bisect run checks out, in the same order ...
    assert [s["commit"] for s in steps if s["phase"] == "search"] == git_judged
    # ... and around it, GOOD first and the culprit's red verdict judged again: git's count + 2. BAD
    # is judged only when it is the culprit (git names it unjudged): then its red verdict is the proof.
    bad_is_culprit = culprit == kit.git(repo.path, "rev-parse", "HEAD")
    assert bad_is_culprit == (where == "last")
    around = [("endpoint", good), *([("endpoint", culprit)] if bad_is_culprit else []), ("recheck", culprit)]
    assert [(s["phase"], s["commit"]) for s in steps if s["phase"] != "search"] == around
    assert ran.record["evaluations"] == len(git_judged) + 2 + bad_is_culprit
    # the culprit's first parent was judged green by the search itself: the proof needs no extra step
    assert ran.culprits[0]["proof"]["parent_green"].startswith("step ")


@pytest.mark.parametrize("where", ["sub", "second"])
def test_with_untestable_commits_the_graph_search_steps_away_as_git_bisect_does(make_history, kit, tmp_path, where):
    # git ranks by distance and commit id once anything was skipped, and steps away from an untestable
    # best commit with its fixed pseudo-random skip_away: the pure search (vtbisect.dag) does the same.
    from vtbisect.dag import DagSearch

    repo, good, culprit = nested_merges_with_culprit(make_history, kit, where)
    lines = kit.git(repo.path, "log", "--format=%H %ct %P", f"{good}..HEAD").splitlines()
    parents = {line.split()[0]: line.split()[2:] for line in lines}
    dates = {line.split()[0]: int(line.split()[1]) for line in lines}
    bad_set = set(kit.git(repo.path, "rev-list", "--ancestry-path", f"{culprit}..HEAD").split()) | {culprit}
    bad = lines[0].split()[0]
    order = DagSearch(list(parents), parents, bad, dates).order  # oldest first
    # git's first pick is untestable (so it must step away at once), and every third commit besides
    first_pick = DagSearch(list(parents), parents, bad, dates).git_choice()
    untestable = ({first_pick} | {sha for i, sha in enumerate(order) if i % 3 == 1}) - {culprit, bad}
    log = tmp_path / "git-judged.txt"
    judge = tmp_path / "judge.sh"
    judge.write_text(f"#!/bin/sh\nhead=$(git rev-parse HEAD)\necho $head >> {log}\n"
                     f"case ' {' '.join(sorted(untestable))} ' in *\" $head \"*) exit 125;; esac\n"
                     "grep -q bad a.txt && exit 1\nexit 0\n")
    judge.chmod(0o755)
    kit.git(repo.path, "bisect", "start", "HEAD", good)
    subprocess.run(["git", "-C", str(repo.path), "bisect", "run", str(judge)], capture_output=True, text=True)
    kit.git(repo.path, "bisect", "reset")
    git_judged = log.read_text().split()
    assert set(git_judged) & untestable, "the history must make git meet an untestable commit"

    search = DagSearch(list(parents), parents, bad, dates)
    judged = []
    while not search.done:
        (sha,) = search.propose(1)
        judged.append(sha)
        search.record(sha, "skip" if sha in untestable else "bad" if sha in bad_set else "good")
    assert judged == git_judged
