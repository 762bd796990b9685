"""Ranges as git sees them (shallow clones, GOOD BAD typed as two arguments, GOOD off BAD's
first-parent line) and endpoints verified first, on real histories through the real vtbisect."""

from __future__ import annotations

import sys

import pytest

SHELL_JUDGE = "grep -q bad a.txt && exit 1\nexit 0\n"


def judge(tmp_path):
    script = tmp_path / "judge.sh"
    script.write_text("#!/bin/sh\n" + SHELL_JUDGE)
    script.chmod(0o755)
    return str(script)


def test_a_shallow_clone_names_git_fetch_unshallow_unless_the_range_is_inside_it(make_history, kit, vtbisect,
                                                                                   tmp_path):
    repo = make_history()
    kit.linear_history(repo, 10, {8: "a.txt"})
    clone = tmp_path / "shallow"
    kit.git(tmp_path, "clone", "-q", "--depth", "4", f"file://{repo.path}", str(clone))
    assert kit.git(clone, "rev-parse", "--is-shallow-repository") == "true"

    outside = vtbisect(clone, f"{repo.shas[0]}..HEAD", "--", judge(tmp_path))
    assert outside.code == 2
    assert f"this is a shallow clone (git clone --depth) and GOOD {repo.shas[0]} is not in it" in outside.stderr
    assert "fix: fetch the whole history first with git fetch --unshallow" in outside.stderr

    # HEAD~3 is the clone's boundary commit (present, its parents not): HEAD~4 is past the history.
    past = vtbisect(clone, "HEAD~4..HEAD", "--", judge(tmp_path))
    assert past.code == 2 and "git fetch --unshallow" in past.stderr

    inside = vtbisect(clone, "HEAD~3..HEAD", "--", judge(tmp_path))
    assert inside.code == 1, inside.stderr
    assert inside.culprits[0]["commit"] == repo.shas[9]


@pytest.mark.parametrize("swapped", [False, True])
def test_good_and_bad_as_two_arguments_get_did_you_mean(make_history, kit, vtbisect, tmp_path, swapped):
    repo = make_history()
    kit.linear_history(repo, 6, {3: "a.txt"})
    first, second = (repo.shas[0][:12], "HEAD")
    args = (second, first) if swapped else (first, second)
    ran = vtbisect(repo.path, *args, "--", judge(tmp_path))
    assert ran.code == 2
    assert (f"the range is one argument, GOOD..BAD: got {args[0]!r} and {args[1]!r} as two; did you mean "
            f"{first}..HEAD? e.g. vtbisect run {first}..HEAD -- CMD ARGS...") in ran.stderr


@pytest.mark.parametrize("mode", ["graph", "first-parent"])
def test_good_off_the_first_parent_line_names_the_merge_and_records_only_real_parents(make_history, kit, vtbisect,
                                                                                     tmp_path, mode):
    repo = make_history()
    repo.commit({"a.txt": "ok\n"}, "base")
    fork = repo.commit({"notes/m1": "1\n"}, "main 1")
    kit.git(repo.path, "checkout", "-q", "-b", "topic")
    good = repo.commit({"notes/t1": "1\n"}, "topic 1 (GOOD)")
    kit.git(repo.path, "checkout", "-q", "main")
    culprit = repo.commit({"a.txt": "bad\n"}, "main 2 breaks a")
    kit.git(repo.path, "merge", "-q", "--no-ff", "-m", "merge topic", "topic")
    merge = kit.git(repo.path, "rev-parse", "HEAD")
    repo.filler(3, "after")
    extra = ["--first-parent"] if mode == "first-parent" else []
    ran = vtbisect(repo.path, f"{good}..HEAD", *extra, "--", judge(tmp_path))
    assert ran.code == 1, ran.stderr
    (found,) = ran.culprits
    assert found["commit"] == culprit
    assert found["parent"] == fork, "the culprit's recorded parent is its real parent, not GOOD"
    said = f"GOOD {good[:10]} is not on BAD's first-parent line: merge {merge[:10]} (merge topic) brought its side in"
    if mode == "first-parent":
        said += (f"; the search follows the first-parent line from {fork[:10]} (main 1), the newest commit of that "
                 "line GOOD contains, judged in GOOD's place")
    else:
        said += "; the search runs over the commit graph of GOOD..BAD, as git bisect does"
    assert said in ran.record["notes"] and said in ran.stderr
    judged = {step["commit"]: step["verdict"] for step in ran.record["steps"]}
    assert judged[fork] == "good"
    assert (good in judged) == (mode == "graph"), "over the graph GOOD itself is judged; along the line, its stand-in"
    assert found["proof"]["parent_green"].startswith("step ")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_wrong_good_costs_one_judgement_not_a_search(make_history, kit, vtbisect, tmp_path, jobs):
    repo = make_history()
    kit.linear_history(repo, 40, {2: "a.txt"})
    wrong_good = repo.shas[20]  # already bad
    ran = vtbisect(repo.path, f"{wrong_good}..HEAD", "-j", jobs, "--", judge(tmp_path))
    assert ran.code == 2
    assert f"GOOD endpoint {wrong_good[:10]} judges bad: the command fails at GOOD; pick an older GOOD" in ran.stderr
    judged = [line for line in ran.stderr.splitlines() if line.lstrip().startswith("step ")]
    # GOOD first (with -j 2 beside the first cut point), then GOOD once more (a verdict that stops the
    # run is rechecked): no search, and BAD is never judged
    expected = ["(endpoint,", "(recheck,"] if jobs == "1" else ["(endpoint,", "(search,", "(recheck,"]
    assert [next(p for p in ("(endpoint,", "(search,", "(recheck,") if p in line) for line in judged] == expected, \
        ran.stderr
    assert all(wrong_good[:10] in line for line in judged if "(search," not in line)
    once = vtbisect(repo.path, f"{wrong_good}..HEAD", "-j", jobs, "--no-recheck", "--", judge(tmp_path))
    assert once.code == 2 and len([ln for ln in once.stderr.splitlines() if ln.lstrip().startswith("step ")]) == int(jobs)


def test_a_good_endpoint_that_flakes_red_once_is_rechecked_not_believed(make_history, kit, vtbisect, tmp_path):
    repo = make_history()
    kit.linear_history(repo, 12, {6: "a.txt"})
    state = tmp_path / "seen"
    script = tmp_path / "flaky-good.sh"
    script.write_text(f"#!/bin/sh\nif [ \"$VTBISECT_COMMIT\" = {repo.shas[0]} ] && [ ! -e {state} ]; then\n"
                      f"  touch {state}; exit 1\nfi\n" + SHELL_JUDGE)
    script.chmod(0o755)
    once = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--no-cache", "--no-recheck", "--", str(script))
    assert once.code == 2 and "GOOD endpoint" in once.stderr
    state.unlink()
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--no-cache", "--", str(script))
    assert ran.code == 1, ran.stderr
    assert ran.culprits[0]["commit"] == repo.shas[7]


def test_with_two_jobs_good_and_the_first_cut_point_are_the_first_round(make_history, kit, vtbisect, tmp_path):
    repo = make_history()
    kit.linear_history(repo, 20, {11: "a.txt"})
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "-j", "2", "--", sys.executable, "-c",
                   "import sys; sys.exit(open('a.txt').read().strip() == 'bad')")
    assert ran.code == 1, ran.stderr
    first_round = [s for s in ran.record["steps"] if s["round"] == 1]
    assert [(s["commit"], s["phase"]) for s in first_round] == [(repo.shas[0], "endpoint"), (repo.shas[10], "search")]
    # BAD is not judged: the culprit below it is proved by its own red verdict (and its recheck)
    assert repo.shas[-1] not in {s["commit"] for s in ran.record["steps"]}
    assert ran.culprits[0]["commit"] == repo.shas[12]


def test_bad_is_judged_when_the_search_would_name_it(make_history, kit, vtbisect, tmp_path):
    repo = make_history()
    kit.linear_history(repo, 12, {11: "a.txt"})  # the last commit, BAD itself, breaks it
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", judge(tmp_path))
    assert ran.code == 1, ran.stderr
    (found,) = ran.culprits
    assert found["commit"] == repo.shas[-1]
    bad_steps = [s for s in ran.record["steps"] if s["commit"] == repo.shas[-1]]
    assert [(s["phase"], s["verdict"]) for s in bad_steps] == [("endpoint", "bad"), ("recheck", "bad")]
    assert found["proof"]["culprit_red"] in {f"step {s['number']}" for s in bad_steps}


def test_a_bad_that_judges_good_is_refused_when_the_search_reaches_it(make_history, kit, vtbisect, tmp_path):
    repo = make_history()
    kit.linear_history(repo, 12, {})  # nothing breaks: BAD is green
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", judge(tmp_path))
    assert ran.code == 2, ran.stderr
    assert (f"BAD endpoint {repo.shas[-1][:10]} judges good: the command exits 0 at BAD, and no commit of the range "
            "judged bad, so there is nothing to bisect; check the BAD revision or the gate name") in ran.stderr
