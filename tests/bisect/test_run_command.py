"""Command mode on real generated git histories, through the real vtbisect process."""

from __future__ import annotations

import re
import sys
from pathlib import Path


def cmd(script: Path) -> list[str]:
    return ["--", sys.executable, str(script)]


def test_single_culprit_is_found_with_the_parent_green_culprit_red_proof(make_history, kit, vtbisect, judge_script):
    repo = make_history()
    kit.linear_history(repo, 24, {13: "a.txt"})
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", *cmd(judge_script))
    assert ran.code == 1, ran.stderr
    (culprit,) = ran.culprits
    assert culprit["commit"] == repo.shas[14]
    assert culprit["subject"] == "break a.txt at 13"
    assert culprit["kind"] == "regression" and culprit["masked_by"] is None
    assert culprit["parent"] == repo.shas[13]
    steps = {s["commit"]: s for s in ran.record["steps"]}
    assert steps[repo.shas[13]]["verdict"] == "good" and steps[repo.shas[14]]["verdict"] == "bad"
    assert ran.record["candidates"] == 24
    assert ran.record["good"] == repo.shas[0] and ran.record["bad"] == repo.shas[-1]
    assert ran.record["evaluations"] <= 5 + 3  # ceil(log2 24) + BAD + GOOD (verified first) + the culprit rechecked


def test_masked_second_culprit_is_found_with_all_culprits(make_history, kit, vtbisect, judge_script):
    repo = make_history()
    kit.linear_history(repo, 30, {8: "a.txt", 20: "b.txt"})
    first_only = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", *cmd(judge_script))
    assert [c["commit"] for c in first_only.culprits] == [repo.shas[9]]

    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--all-culprits", *cmd(judge_script))
    assert ran.code == 1, ran.stderr
    first, second = ran.culprits
    assert first["commit"] == repo.shas[9] and first["masked_by"] is None
    assert second["commit"] == repo.shas[21] and second["masked_by"] == repo.shas[9]
    assert second["reverts"] == [repo.shas[9]]
    masked_steps = [s for s in ran.record["steps"] if s["reverts"] == [repo.shas[9]]]
    assert masked_steps, "the masked search judges candidates with the first culprit reverted"
    # BAD with both culprits reverted was not needed: BAD with C1 reverted was red, then C2 found.
    assert any(s["commit"] == repo.shas[-1] and s["verdict"] == "bad" for s in masked_steps)


def test_revert_conflict_stops_the_masked_search_and_says_which_commit(make_history, kit, vtbisect, judge_script):
    repo = make_history()
    repo.commit({"a.txt": "ok\n", "b.txt": "ok\n"}, "base")
    repo.filler(3)
    repo.commit({"a.txt": "bad\n"}, "break a")
    repo.filler(2)
    repo.commit({"a.txt": "bad\nmore\n", "b.txt": "bad\n"}, "touch a again and break b")
    repo.filler(2)
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--all-culprits", *cmd(judge_script))
    assert ran.code == 1
    assert [c["commit"] for c in ran.culprits] == [repo.shas[4]]
    assert any("conflicts" in note and repo.shas[4][:10] in note for note in ran.record["notes"]), ran.record["notes"]


def test_untestable_window_around_the_midpoint_is_stepped_around(make_history, kit, vtbisect, judge_script):
    repo = make_history()
    kit.linear_history(repo, 32, {21: "a.txt"}, untestable=range(12, 19))
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", *cmd(judge_script))
    assert ran.code == 1, ran.stderr
    assert [c["commit"] for c in ran.culprits] == [repo.shas[22]]
    skipped = [s for s in ran.record["steps"] if s["verdict"] == "skip"]
    assert skipped, "the midpoint fell in the window and was judged untestable"
    assert all(repo.shas.index(s["commit"]) - 1 in range(12, 19) for s in skipped)


def test_boundary_inside_untestable_commits_reports_every_possible_culprit(make_history, kit, vtbisect, judge_script):
    repo = make_history()
    kit.linear_history(repo, 16, {10: "a.txt"}, untestable=range(8, 12))
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", *cmd(judge_script))
    assert ran.code == 1
    (culprit,) = ran.culprits
    assert culprit["exact"] is False
    assert culprit["candidates"] == [repo.shas[i + 1] for i in (8, 9, 10, 11, 12)]
    assert "one of" in ran.stderr


def test_deliberate_red_trailer_is_reported_as_deliberate_and_exits_zero(make_history, kit, vtbisect, judge_script):
    repo = make_history()
    kit.linear_history(repo, 12, {5: "a.txt"}, deliberate={5: "command"})
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", *cmd(judge_script))
    assert ran.code == 0, ran.stderr
    (culprit,) = ran.culprits
    assert culprit["kind"] == "deliberate" and culprit["commit"] == repo.shas[6]
    assert "deliberate red" in ran.stderr


def test_flaky_good_commit_misleads_a_single_judgement_and_repeat_resolves_it(
    make_history, kit, vtbisect, flaky_script, tmp_path
):
    repo = make_history()
    kit.linear_history(repo, 16, {11: "a.txt"})
    # The first midpoint (candidate 7) is good but says bad the first time it is judged.
    flaky = repo.shas[8]
    env = {"FLAKE_STATE": str(tmp_path / "flake-state"), "FLAKY_COMMITS": flaky}
    naive = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--no-cache", "--no-recheck", *cmd(flaky_script), env=env)
    assert [c["commit"] for c in naive.culprits] == [flaky], "judged once, as git does, the flake wins"

    for seen in (tmp_path / "flake-state").iterdir():
        seen.unlink()
    default = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--no-cache", *cmd(flaky_script), env=env)
    assert [c["commit"] for c in default.culprits] == [repo.shas[12]], default.stderr
    rechecks = [s["verdict"] for s in default.record["steps"] if s["commit"] == flaky and s["phase"] == "recheck"]
    assert rechecks == ["good", "good", "good"], "contested, it is judged until good leads by two"
    assert any(note.startswith(f"command at {flaky[:10]} judged bad, then good good good afresh: good")
               for note in default.record["notes"]), default.record["notes"]

    for seen in (tmp_path / "flake-state").iterdir():
        seen.unlink()
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--no-cache", "--repeat", "3", *cmd(flaky_script), env=env)
    assert [c["commit"] for c in ran.culprits] == [repo.shas[12]], ran.stderr
    flaky_step = next(s for s in ran.record["steps"] if s["commit"] == flaky)
    assert flaky_step["verdict"] == "good"
    assert flaky_step["flaky"] == {"command": round(1 / 3, 3)}
    assert flaky_step["votes"]["command"] == ["bad", "good", "good"]


def test_confirm_rejudges_the_boundary_and_recovers_from_a_flaky_bad(
    make_history, kit, vtbisect, flaky_script, tmp_path
):
    repo = make_history()
    kit.linear_history(repo, 16, {11: "a.txt"})
    flaky = repo.shas[8]
    env = {"FLAKE_STATE": str(tmp_path / "flake-state"), "FLAKY_COMMITS": flaky}
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--no-cache", "--confirm", "3", *cmd(flaky_script), env=env)
    assert [c["commit"] for c in ran.culprits] == [repo.shas[12]], ran.stderr
    assert any("confirmation flipped" in note for note in ran.record["notes"])
    assert any(s["phase"] == "confirm" for s in ran.record["steps"])


def test_second_identical_run_evaluates_nothing(make_history, kit, vtbisect, judge_script):
    repo = make_history()
    kit.linear_history(repo, 20, {7: "a.txt"})
    first = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", *cmd(judge_script))
    second = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", *cmd(judge_script))
    assert first.record["evaluations"] > 0
    assert second.record["evaluations"] == 0
    assert all(s["cached"] for s in second.record["steps"])
    assert second.culprits == first.culprits
    # A different command is a different oracle: nothing is reused.
    other = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", sys.executable, str(judge_script), "extra-arg")
    assert other.record["evaluations"] > 0
    uncached = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--no-cache", *cmd(judge_script))
    assert uncached.record["evaluations"] == first.record["evaluations"]


def test_parallel_multisection_finds_the_same_culprit_in_fewer_rounds(make_history, kit, vtbisect, judge_script):
    repo = make_history()
    kit.linear_history(repo, 40, {29: "a.txt"})
    serial = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--no-cache", *cmd(judge_script))
    parallel = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--no-cache", "-j", "3", *cmd(judge_script))
    assert serial.culprits[0]["commit"] == parallel.culprits[0]["commit"] == repo.shas[30]
    assert parallel.record["rounds"] < serial.record["rounds"]
    assert parallel.record["rounds"] <= 1 + 3  # endpoints + ceil(log4 40)


def test_pathspec_limits_candidates_to_commits_touching_the_paths(make_history, kit, vtbisect, judge_script):
    repo = make_history()
    kit.linear_history(repo, 20, {12: "a.txt"})
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--path", "a.txt", *cmd(judge_script))
    assert ran.record["candidates"] == 2  # the culprit and BAD (always kept)
    assert ran.culprits[0]["commit"] == repo.shas[13]


def test_a_merge_culprit_is_opened_up_to_the_commit_on_the_merged_branch(make_history, kit, vtbisect, judge_script):
    repo = make_history()
    repo.commit({"a.txt": "ok\n", "b.txt": "ok\n"}, "base")
    good = repo.shas[0]
    repo.filler(2, "main")
    kit.git(repo.path, "checkout", "-q", "-b", "topic")
    repo.filler(2, "topic")
    culprit = repo.commit({"a.txt": "bad\n"}, "topic: break a")
    repo.filler(2, "topic")
    kit.git(repo.path, "checkout", "-q", "main")
    for i in range(3):
        repo.filler(1, f"main-{i}")
        side = kit.git(repo.path, "checkout", "-q", "-b", f"side{i}")
        del side
        repo.filler(1, f"side-{i}")
        kit.git(repo.path, "checkout", "-q", "main")
        kit.git(repo.path, "merge", "-q", "--no-ff", "-m", f"merge side{i}", f"side{i}")
    kit.git(repo.path, "merge", "-q", "--no-ff", "-m", "merge topic", "topic")
    repo.filler(2, "after")
    before = kit.snapshot(repo.path)
    ran = vtbisect(repo.path, f"{good}..HEAD", *cmd(judge_script))
    assert ran.code == 1, ran.stderr
    assert [c["commit"] for c in ran.culprits] == [culprit]
    assert "merged by" in ran.culprits[0]["note"]
    mainline = vtbisect(repo.path, f"{good}..HEAD", "--first-parent", *cmd(judge_script))
    assert mainline.code == 1, mainline.stderr
    assert mainline.culprits[0]["subject"] == "merge topic"
    assert kit.snapshot(repo.path) == before and kit.leftover_worktrees(repo.path) == []


def test_evidence_folder_has_readme_logs_json_and_a_replayable_log(make_history, kit, vtbisect, judge_script, tmp_path):
    repo = make_history()
    kit.linear_history(repo, 20, {5: "a.txt", 15: "b.txt"})
    evidence = tmp_path / "evidence"
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--all-culprits", "--evidence", str(evidence),
                   *cmd(judge_script))
    assert ran.code == 1
    readme = (evidence / "README-bisect.md").read_text()
    for culprit in ran.culprits:
        assert culprit["commit"][:10] in readme and culprit["subject"] in readme
        assert "proof: parent" in readme
    assert "## Runner recipe" in readme and str(judge_script) in readme
    assert re.search(r"a\.txt\s+\| 2 \+-", readme)  # diffstat of the first culprit
    assert len(list((evidence / "steps").glob("*.log"))) == len(ran.record["steps"])
    log = (evidence / "bisect-log.txt").read_text()
    assert f"# first bad commit: [{repo.shas[6]}]" in log

    # git bisect replay accepts the log in a clone and lands where we did.
    clone = tmp_path / "clone"
    kit.git(tmp_path, "clone", "-q", str(repo.path), str(clone))
    replayed = kit.git(clone, "bisect", "replay", str(evidence / "bisect-log.txt"))
    assert f"{repo.shas[6]} is the first bad commit" in replayed

    replay = kit.run_vtbisect(repo.path, "replay", str(evidence / "bisect-log.txt"))
    assert replay.code == 0, replay.stderr
    assert replay.stderr.count("holds") == 3  # two culprits + "the record holds"


def test_replay_says_when_a_record_no_longer_holds(make_history, kit, vtbisect, judge_script, tmp_path):
    repo = make_history()
    kit.linear_history(repo, 10, {4: "a.txt"})
    evidence = tmp_path / "ev"
    vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--evidence", str(evidence), *cmd(judge_script))
    judge_script.write_text("import sys; sys.exit(0)\n")  # the test changed: nothing is red any more
    replay = kit.run_vtbisect(repo.path, "replay", str(evidence / "bisect-log.txt"))
    assert replay.code == 1
    assert "does not hold" in replay.stderr


def test_masked_culprit_right_after_the_first_is_proven_against_the_reverted_floor(
    make_history, kit, vtbisect, judge_script
):
    # C2 is C1's child: the masked search's bracket reaches its floor (C1 with C1 reverted), which is
    # judged, not assumed green, and is the masked culprit's parent-green proof.
    repo = make_history()
    kit.linear_history(repo, 12, {5: "a.txt", 6: "b.txt"})
    c1, c2 = repo.shas[6], repo.shas[7]
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--all-culprits", *cmd(judge_script))
    assert ran.code == 1, ran.stderr
    first, second = ran.culprits
    assert (first["commit"], second["commit"], second["masked_by"]) == (c1, c2, c1)
    assert second["parent"] == c1 and second["reverts"] == [c1]
    floor = [s for s in ran.record["steps"] if s["commit"] == c1 and s["reverts"] == [c1]]
    assert [s["verdict"] for s in floor] == ["good"], ran.record["steps"]
    assert second["proof"]["parent_green"] == f"step {floor[0]['number']}"
    assert not ran.record["notes"]


# The n-th judgement of a commit listed in PLAN ("sha=gbg ...") says what the plan says (g good,
# b bad); later judgements, and other commits, the truth.
SCRIPTED = """\
import os, pathlib, sys
commit = os.environ['VTBISECT_COMMIT']
seen = pathlib.Path(os.environ['FLAKE_STATE']) / commit
n = len(seen.read_text()) if seen.exists() else 0
seen.write_text('x' * (n + 1))
plan = dict(item.split('=') for item in os.environ.get('PLAN', '').split())
if n < len(plan.get(commit, '')):
    sys.exit(0 if plan[commit][n] == 'g' else 1)
sys.exit(1 if pathlib.Path('a.txt').read_text().strip() == 'bad' else 0)
"""


def _scripted_confirm_run(make_history, kit, vtbisect, tmp_path, parent_plan: str):
    """16 commits, culprit at 12; the culprit's parent judges by ``parent_plan`` (g/b per judgement, then
    the truth); run with --confirm 3. Returns (run, parent sha, culprit sha)."""
    repo = make_history()
    kit.linear_history(repo, 16, {11: "a.txt"})
    script = tmp_path / "scripted.py"
    script.write_text(SCRIPTED)
    (tmp_path / "state").mkdir()
    parent, culprit = repo.shas[11], repo.shas[12]
    env = {"FLAKE_STATE": str(tmp_path / "state"), "PLAN": f"{parent}={parent_plan}"}
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--no-cache", "--confirm", "3", *cmd(script), env=env)
    return ran, parent, culprit


def test_a_confirmation_overturns_the_search_only_with_a_lead_of_two_votes(make_history, kit, vtbisect, tmp_path):
    # The culprit's parent judges good in the search, then bad, good, bad in the confirmation: a bare
    # 2 of 3 would call it bad and name the parent as the culprit. Contested, it is judged again, one
    # fresh judgement at a time, until one verdict leads by two (here good, the truth).
    ran, parent, culprit = _scripted_confirm_run(make_history, kit, vtbisect, tmp_path, "gbgb")
    assert ran.code == 1, ran.stderr
    assert [c["commit"] for c in ran.culprits] == [culprit], ran.record["notes"]
    judged = [(s["phase"], s["verdict"]) for s in ran.record["steps"] if s["commit"] == parent]
    assert judged == [("search", "good"), ("confirm", "bad"), ("confirm", "good"), ("confirm", "good"),
                      ("confirm", "good")], judged
    assert not any("flipped" in note for note in ran.record["notes"])


def test_an_overturned_point_is_confirmed_afresh_in_its_new_role(make_history, kit, vtbisect, tmp_path):
    # The parent judges good in the search, then bad, bad in its confirmation: overturned, it becomes
    # the culprit. Its confirmation as culprit must not be those same two votes: fresh ones say good,
    # it is overturned back, and the true culprit stands.
    ran, parent, culprit = _scripted_confirm_run(make_history, kit, vtbisect, tmp_path, "gbb")
    assert ran.code == 1, ran.stderr
    assert [c["commit"] for c in ran.culprits] == [culprit], (ran.record["notes"], ran.stderr)
    flips = [note for note in ran.record["notes"] if "flipped" in note]
    assert len(flips) == 2 and "good -> bad" in flips[0] and "bad -> good" in flips[1], flips
