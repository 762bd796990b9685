"""The verdict cache key holds everything outside the candidate tree that decides a verdict: the
judge script's content, where the command resolves, the suite's knobs; and nothing incidental (an
unrelated PATH folder). Real histories, real vtbisect processes."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

VTGATE = str(Path(sys.executable).parent / "vtgate")


def cmd(script: Path) -> list[str]:
    return ["--", sys.executable, str(script)]


def test_a_judge_script_fixed_in_place_is_judged_afresh_and_the_evidence_keeps_it(
    make_history, kit, vtbisect, judge_script, tmp_path
):
    repo = make_history()
    kit.linear_history(repo, 16, {9: "a.txt"})
    first = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", *cmd(judge_script))
    assert first.code == 1 and first.record["evaluations"] > 0, first.stderr
    again = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", *cmd(judge_script))
    assert again.record["evaluations"] == 0

    judge_script.write_text(judge_script.read_text() + "# fixed: a comment is enough to be another judge\n")
    evidence = tmp_path / "evidence"
    fixed = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--evidence", str(evidence), *cmd(judge_script))
    assert fixed.code == 1
    assert fixed.record["evaluations"] == first.record["evaluations"], "a changed judge script is a cache miss"
    assert not any(step["cached"] for step in fixed.record["steps"])
    digest = hashlib.sha256(judge_script.read_bytes()).hexdigest()
    assert fixed.record["recipe"]["judge_files"] == {str(judge_script): digest}
    (copy,) = (evidence / "judge").iterdir()
    assert copy.read_bytes() == judge_script.read_bytes()
    assert f"`{judge_script}` sha256 `{digest}`" in (evidence / "README-bisect.md").read_text()

    uncached = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--no-cache", *cmd(judge_script))
    assert uncached.record["evaluations"] == first.record["evaluations"], "--no-cache still judges everything"


def test_an_unrelated_folder_on_path_is_a_cache_hit(make_history, kit, vtbisect, judge_script, tmp_path):
    repo = make_history()
    kit.linear_history(repo, 12, {4: "a.txt"})
    first = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", *cmd(judge_script))
    assert first.code == 1 and first.record["evaluations"] > 0
    unrelated = tmp_path / "unrelated-bin"
    unrelated.mkdir()
    env = {"PATH": f"{unrelated}{os.pathsep}{os.environ['PATH']}"}
    again = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", *cmd(judge_script), env=env)
    assert again.code == 1, again.stderr
    assert again.record["evaluations"] == 0 and again.culprits == first.culprits


def test_where_path_resolves_the_command_is_part_of_the_key(make_history, kit, vtbisect, tmp_path):
    # The same command name resolving to another program through PATH is another judge.
    repo = make_history()
    kit.linear_history(repo, 12, {4: "a.txt"})
    for name, extra in (("one", ""), ("two", "# the second copy\n")):
        folder = tmp_path / name
        folder.mkdir()
        program = folder / "judge-a"
        program.write_text(f"#!/bin/sh\n{extra}grep -q bad a.txt && exit 1\nexit 0\n")
        program.chmod(0o755)
    path = os.environ["PATH"]
    first = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", "judge-a", env={"PATH": f"{tmp_path / 'one'}:{path}"})
    assert first.code == 1 and first.record["evaluations"] > 0, first.stderr
    same = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", "judge-a", env={"PATH": f"{tmp_path / 'one'}:{path}"})
    assert same.record["evaluations"] == 0
    other = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", "judge-a", env={"PATH": f"{tmp_path / 'two'}:{path}"})
    assert other.record["evaluations"] == first.record["evaluations"]


SVC_SUITE = """\
[suite]
pythonpath = ["src"]
knob_prefixes = ["SVC_"]
timeout = 30

[[gate]]
name = "width"
kind = "counters"
counters = ["width"]
probe = "svc.probes:measure"
"""


def test_a_suite_knob_changed_in_the_shell_is_judged_afresh(make_history, kit, vtbisect, tmp_path, monkeypatch):
    monkeypatch.setenv("VT_BISECT_CACHE_DIR", str(tmp_path / "cache"))
    repo = make_history("svc")
    repo.commit({"vtgate.toml": SVC_SUITE, "src/svc/__init__.py": "",
                 "src/svc/probes.py": "from svc.width import WIDTH\n\n\ndef measure() -> dict:\n"
                                      "    return {'counters': {'width': WIDTH}}\n",
                 "src/svc/width.py": "WIDTH = 4\n"}, "service")
    done = subprocess.run([VTGATE, "bless", "width", "--reason", "first measurement"], cwd=repo.path,
                          capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1", "COLUMNS": "1000"})
    assert done.returncode == 0, done.stderr
    repo.commit({}, "bless")
    repo.filler(2)
    repo.commit({"src/svc/width.py": "WIDTH = 5\n"}, "widen")
    repo.filler(2)
    first = vtbisect(repo.path, f"{repo.shas[1]}..HEAD", "--gate", "width", env={"SVC_DTYPE": "bf16"})
    assert first.code == 1, first.stderr
    assert first.culprits[0]["subject"] == "widen"
    assert first.record["recipe"]["env"].get("SVC_DTYPE") == "bf16"
    same = vtbisect(repo.path, f"{repo.shas[1]}..HEAD", "--gate", "width", env={"SVC_DTYPE": "bf16",
                                                                             "UNRELATED_X": "1"})
    assert same.record["evaluations"] == 0
    knob = vtbisect(repo.path, f"{repo.shas[1]}..HEAD", "--gate", "width", env={"SVC_DTYPE": "f32"})
    assert knob.code == 1
    assert knob.record["evaluations"] == first.record["evaluations"], "a suite knob is part of the verdict's key"


def test_a_judge_that_changes_during_the_run_stops_it(make_history, kit, vtbisect, tmp_path):
    # The judge is edited while vtbisect runs (here: it edits itself at its first judgement, GOOD's):
    # the verdicts so far came from the old judge, so the search must not go on with the new one.
    repo = make_history()
    kit.linear_history(repo, 16, {9: "a.txt"})
    script = tmp_path / "judge.sh"
    original = "#!/bin/sh\nprintf '# edited while vtbisect runs\\n' >> \"$0\"\ngrep -q bad a.txt && exit 1\nexit 0\n"
    script.write_text(original)
    script.chmod(0o755)
    before = hashlib.sha256(original.encode()).hexdigest()
    after = hashlib.sha256((original + "# edited while vtbisect runs\n").encode()).hexdigest()
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", str(script))
    assert ran.code == 2, ran.stderr
    first_cut = repo.shas[8]  # GOOD judged, then the search's first commit: the 8th of 16
    assert (f"the judge changed during the bisection: {script} had sha256 {before} when the run started, and has "
            f"{after} before judging {first_cut[:10]}; verdicts of two different judges cannot be combined, so the "
            "run stops here; fix: leave the judge unchanged while vtbisect runs, then run again (the verdict cache "
            "keys on the judge's content: a changed judge is judged afresh)") in ran.stderr
    assert [line for line in ran.stderr.splitlines() if line.lstrip().startswith("step ")] == [
        line for line in ran.stderr.splitlines() if line.lstrip().startswith("step   1 good")]
