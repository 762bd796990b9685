"""The user's repository is never touched (byte for byte, also after Ctrl-C), and every bad input
gets a clear message, the documented exit code, and leaves nothing behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest


def dirty_user_checkout(repo, kit) -> None:
    """A realistic mid-work checkout: a branch, a stash, staged and unstaged edits, an untracked file."""
    kit.git(repo.path, "branch", "feature-x", repo.shas[2])
    (repo.path / "a.txt").write_text("stashed edit\n")
    kit.git(repo.path, "stash", "-q")
    (repo.path / "b.txt").write_text("staged edit\n")
    kit.git(repo.path, "add", "b.txt")
    (repo.path / "a.txt").write_text("unstaged edit\n")
    (repo.path / "scratch.txt").write_text("untracked\n")


def test_dirty_checkout_is_left_byte_for_byte_and_the_user_is_told(make_history, kit, vtbisect, judge_script):
    repo = make_history()
    kit.linear_history(repo, 16, {9: "a.txt"})
    dirty_user_checkout(repo, kit)
    before = kit.snapshot(repo.path)
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "-j", "2", "--all-culprits", *["--", sys.executable, str(judge_script)])
    assert ran.code == 1, ran.stderr
    assert ran.culprits[0]["commit"] == repo.shas[10]  # judged the committed code, not the dirty files
    assert "never touches it" in ran.stderr
    assert kit.snapshot(repo.path) == before
    assert kit.leftover_worktrees(repo.path) == []


SLOW_SCRIPT = """\
import os, pathlib, sys, time
pathlib.Path(os.environ['PID_DIR'], str(os.getpid())).write_text('')
time.sleep(30)
sys.exit(0)
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_sigint_mid_run_leaves_the_repository_exactly_as_it_was(make_history, kit, tmp_path, jobs):
    repo = make_history()
    kit.linear_history(repo, 16, {9: "a.txt"})
    dirty_user_checkout(repo, kit)
    before = kit.snapshot(repo.path)
    script = tmp_path / "slow.py"
    script.write_text(SLOW_SCRIPT)
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    proc = subprocess.Popen(
        [*kit.VTBISECT, "run", f"{repo.shas[0]}..HEAD", "-j", jobs, "--", sys.executable, str(script)],
        cwd=repo.path, env={**os.environ, "PID_DIR": str(pid_dir), "NO_COLOR": "1"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 30
    while not list(pid_dir.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)
    children = [int(p.name) for p in pid_dir.iterdir()]
    assert children, "the judge command never started"
    assert kit.leftover_worktrees(repo.path), "a worktree exists while the command runs"
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    said = " ".join(stderr.split())
    assert "interrupted: vtbisect run (" in said and "re-run the same command to resume" in said
    assert kit.snapshot(repo.path) == before
    assert kit.leftover_worktrees(repo.path) == []
    for pid in children:
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_sigterm_cleans_up_like_ctrl_c_and_exits_143(make_history, kit, tmp_path):
    repo = make_history()
    kit.linear_history(repo, 8, {5: "a.txt"})
    before = kit.snapshot(repo.path)
    script = tmp_path / "slow.py"
    script.write_text(SLOW_SCRIPT)
    pid_dir = tmp_path / "pids"
    pid_dir.mkdir()
    proc = subprocess.Popen([*kit.VTBISECT, "run", f"{repo.shas[0]}..HEAD", "--", sys.executable, str(script)],
                            cwd=repo.path, env={**os.environ, "PID_DIR": str(pid_dir)},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not list(pid_dir.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 143, stderr  # 128 + SIGTERM (docs/contracts.md#exit-codes)
    assert "interrupted: vtbisect run (" in " ".join(stderr.split())
    assert kit.snapshot(repo.path) == before
    assert kit.leftover_worktrees(repo.path) == []


def test_interrupted_run_resumes_from_its_cache(make_history, kit, vtbisect, tmp_path):
    repo = make_history()
    kit.linear_history(repo, 30, {20: "a.txt"})
    # Judge that hangs on one commit the first time: the run is interrupted there.
    script = tmp_path / "hang.py"
    script.write_text(
        "import os, pathlib, sys, time\n"
        "marker = pathlib.Path(os.environ['MARK'])\n"
        "if os.environ['VTBISECT_COMMIT'] == os.environ['HANG_AT'] and not marker.exists():\n"
        "    marker.write_text(''); time.sleep(30)\n"
        "sys.exit(1 if pathlib.Path('a.txt').read_text().strip() == 'bad' else 0)\n")
    env = {**os.environ, "MARK": str(tmp_path / "hung"), "HANG_AT": repo.shas[22]}  # the second midpoint
    proc = subprocess.Popen([*kit.VTBISECT, "run", f"{repo.shas[0]}..HEAD", "--", sys.executable, str(script)],
                            cwd=repo.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not (tmp_path / "hung").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (tmp_path / "hung").exists(), "the run never reached the hanging commit"
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)
    assert proc.returncode == 130
    resumed = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", sys.executable, str(script), env=env)
    assert resumed.culprits[0]["commit"] == repo.shas[21], [
        (repo.shas.index(s["commit"]), s["verdict"], s["cached"]) for s in resumed.record["steps"]]
    cached = [s for s in resumed.record["steps"] if s["cached"]]
    assert len(cached) >= 2, "BAD and the first midpoint come from the interrupted run's cache"


def test_two_runs_at_once_on_one_repository_both_succeed(make_history, kit, judge_script, tmp_path):
    repo = make_history()
    kit.linear_history(repo, 20, {11: "a.txt"})
    argv = [*kit.VTBISECT, "run", f"{repo.shas[0]}..HEAD", "--json", "-", "--", sys.executable, str(judge_script)]
    procs = [subprocess.Popen(argv, cwd=repo.path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=60) for p in procs]
    import json

    for proc, (out, err) in zip(procs, outs, strict=False):
        assert proc.returncode == 1, err
        assert json.loads(out)["culprits"][0]["commit"] == repo.shas[12]
    assert kit.leftover_worktrees(repo.path) == []


# ---- bad input ------------------------------------------------------------------------------------


@pytest.fixture
def small_repo(make_history, kit):
    repo = make_history()
    kit.linear_history(repo, 6, {3: "a.txt"})
    return repo


def bad_input(kit, cwd: Path, *args: str) -> tuple[int, str]:
    before = kit.snapshot(cwd) if (cwd / ".git").exists() else None
    ran = kit.run_vtbisect(cwd, "run", *args)
    if before is not None:
        assert kit.snapshot(cwd) == before
        assert kit.leftover_worktrees(cwd) == []
    return ran.code, ran.stderr


def test_good_not_an_ancestor_of_bad(small_repo, kit, judge_script):
    kit.git(small_repo.path, "checkout", "-q", "-b", "other", small_repo.shas[1])
    small_repo.commit({"c.txt": "x\n"}, "diverge")
    kit.git(small_repo.path, "checkout", "-q", "main")
    code, err = bad_input(kit, small_repo.path, "other..main", "--", sys.executable, str(judge_script))
    assert code == 2
    assert "is not an ancestor of BAD" in err and "diverged" in err


def test_swapped_range_says_so(small_repo, kit, judge_script):
    code, err = bad_input(kit, small_repo.path, f"HEAD..{small_repo.shas[0]}", "--", sys.executable, str(judge_script))
    assert code == 2
    assert "swapped" in err


@pytest.mark.parametrize(("spec", "role"), [("nope..HEAD", "GOOD"), ("HEAD~3..nope", "BAD")])
def test_unknown_revision(small_repo, kit, judge_script, spec, role):
    code, err = bad_input(kit, small_repo.path, spec, "--", sys.executable, str(judge_script))
    assert code == 2
    assert f"unknown {role} revision 'nope'" in err


def test_range_without_two_dots(small_repo, kit, judge_script):
    code, err = bad_input(kit, small_repo.path, "HEAD", "--", sys.executable, str(judge_script))
    assert code == 2
    assert "GOOD..BAD" in err


def test_empty_range_is_nothing_to_bisect(small_repo, kit, judge_script):
    code, err = bad_input(kit, small_repo.path, "HEAD..HEAD", "--", sys.executable, str(judge_script))
    assert code == 5
    assert "empty range" in err


def test_not_a_git_repository(tmp_path, kit, judge_script):
    folder = tmp_path / "plain"
    folder.mkdir()
    code, err = bad_input(kit, folder, "a..b", "--", sys.executable, str(judge_script))
    assert code == 2
    assert "not inside a git repository" in err
    assert not (folder / ".vtbisect").exists()


def test_command_not_on_path(small_repo, kit):
    code, err = bad_input(kit, small_repo.path, f"{small_repo.shas[0]}..HEAD", "--", "no-such-program-xyz")
    assert code == 2
    assert "command not found: 'no-such-program-xyz'" in err


def test_command_path_missing_in_the_worktree(small_repo, kit):
    code, err = bad_input(kit, small_repo.path, f"{small_repo.shas[0]}..HEAD", "--", "./missing.sh")
    assert code == 2
    assert "command './missing.sh' not found: no such file in " in err and ", nor at GOOD or BAD (missing.sh)" in err


def test_no_command_and_no_gate(small_repo, kit):
    code, err = bad_input(kit, small_repo.path, f"{small_repo.shas[0]}..HEAD")
    assert code == 2
    assert "nothing to run" in err


def test_exit_code_outside_0_127_aborts(small_repo, kit):
    code, err = bad_input(kit, small_repo.path, f"{small_repo.shas[0]}..HEAD", "--", sys.executable, "-c",
                          "import sys; sys.exit(200)")
    assert code == 3
    assert "exited 200" in err and "aborted" in err


def test_bad_endpoint_that_judges_good(small_repo, kit):
    code, err = bad_input(kit, small_repo.path, f"{small_repo.shas[0]}..HEAD", "--", sys.executable, "-c", "pass")
    assert code == 2
    assert "BAD endpoint" in err and "judges good" in err


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_good_endpoint_that_judges_bad(small_repo, kit, jobs):
    code, err = bad_input(kit, small_repo.path, f"{small_repo.shas[0]}..HEAD", "-j", jobs, "--", sys.executable,
                          "-c", "raise SystemExit(1)")
    assert code == 2
    assert "GOOD endpoint" in err and "judges bad" in err


def test_untestable_bad_endpoint(small_repo, kit):
    # BAD is judged when the search would name it: every commit below it is green here
    bad = small_repo.shas[-1]
    code, err = bad_input(kit, small_repo.path, f"{small_repo.shas[0]}..HEAD", "--", sys.executable, "-c",
                          f"import os, sys; sys.exit(125 if os.environ['VTBISECT_COMMIT'] == {bad!r} else 0)")
    assert code == 3
    assert f"BAD {bad[:10]} is untestable for command (see step " in err and "pick a BAD where the test runs" in err


def test_untestable_good_endpoint(small_repo, kit):
    good = small_repo.shas[0]
    code, err = bad_input(kit, small_repo.path, f"{good}..HEAD", "--", sys.executable, "-c", "raise SystemExit(125)")
    assert code == 3
    assert f"GOOD {good[:10]} is untestable for command (see step 1's log): pick a GOOD where the test runs" in err
