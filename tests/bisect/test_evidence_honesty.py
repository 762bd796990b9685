"""Evidence that cannot mislead: a reproduce command that re-judges the same commits without
overwriting anything, proofs served from the cache labelled as such, and an ambiguous result shown
as the set it is."""

from __future__ import annotations

import shlex
import sys


def cmd(script) -> list[str]:
    return ["--", sys.executable, str(script)]


def test_the_reproduce_command_names_full_ids_writes_nothing_and_rejudges(make_history, kit, vtbisect,
                                                                         judge_script, tmp_path):
    repo = make_history()
    kit.linear_history(repo, 12, {5: "a.txt"})
    kit.git(repo.path, "tag", "v1", repo.shas[0])
    evidence, record = tmp_path / "evidence", tmp_path / "record.json"
    ran = kit.run_vtbisect(repo.path, "run", "v1..main", "--evidence", str(evidence), *cmd(judge_script),
                           json_path=record)
    assert ran.code == 1, ran.stderr
    reproduce = ran.record["recipe"]["reproduce"]
    cd, _, line = reproduce.partition(" && ")
    assert cd == f"cd {repo.path}"
    words = shlex.split(line)
    assert words[:3] == ["vtbisect", "run", "--no-cache"]
    assert f"{repo.shas[0]}..{repo.shas[-1]}" in words and "v1..main" not in words
    assert str(evidence) not in line and str(record) not in line and "--json" not in words
    assert "--evidence" not in words
    assert "every step judged afresh (`--no-cache`" in (evidence / "README-bisect.md").read_text()

    before = {p: p.stat().st_mtime_ns for p in evidence.rglob("*")}
    again = kit.run_vtbisect(repo.path, *words[1:], json_path=tmp_path / "again.json")
    assert again.code == 1, again.stderr
    assert again.culprits == ran.culprits
    assert again.record["evaluations"] == ran.record["evaluations"], "--no-cache: every step judged again"
    assert {p: p.stat().st_mtime_ns for p in evidence.rglob("*")} == before


def test_proofs_served_from_the_cache_are_labelled(make_history, kit, vtbisect, judge_script, tmp_path):
    repo = make_history()
    kit.linear_history(repo, 12, {5: "a.txt"})
    fresh_evidence, cached_evidence = tmp_path / "fresh", tmp_path / "cached"
    vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--evidence", str(fresh_evidence), *cmd(judge_script))
    vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--evidence", str(cached_evidence), *cmd(judge_script))
    label = "a cache hit: judged by an earlier run, not this one; re-judge with --no-cache"
    assert label not in (fresh_evidence / "README-bisect.md").read_text()
    readme = (cached_evidence / "README-bisect.md").read_text()
    proof = next(line for line in readme.splitlines() if line.startswith("- proof:"))
    assert proof.count(label) == 2, proof


def test_an_ambiguous_result_is_headed_as_a_set_with_each_members_status(make_history, kit, vtbisect,
                                                                        judge_script, tmp_path):
    repo = make_history()
    kit.linear_history(repo, 16, {10: "a.txt"}, untestable=range(8, 12))
    evidence = tmp_path / "evidence"
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--evidence", str(evidence), *cmd(judge_script))
    assert ran.code == 1, ran.stderr
    (culprit,) = ran.culprits
    members = culprit["candidates"]
    assert culprit["exact"] is False and len(members) == 5
    readme = (evidence / "README-bisect.md").read_text()
    assert "### The first bad commit is one of 5 commits (regression)" in readme
    statuses = {step["commit"]: (step["verdict"], step["number"]) for step in ran.record["steps"]}
    for member in members:
        if member in statuses:
            verdict, number = statuses[member]
            assert f"  - `{member}`: {verdict} at step {number}" in readme
        else:
            assert f"  - `{member}`: not judged" in readme
    assert [statuses[m][0] for m in members] == ["skip"] * 4 + ["bad"]
    assert f"### `{culprit['commit'][:10]}`" not in readme, "no single commit is headed as the culprit"

    replay = kit.run_vtbisect(repo.path, "replay", str(evidence / "bisect-log.txt"))
    assert replay.code == 0, replay.stderr
    assert f"the first bad commit is one of 5 ({' '.join(m[:10] for m in members)})" in replay.stderr
    assert f"{culprit['commit'][:10]} {culprit['subject']}:" not in replay.stderr
