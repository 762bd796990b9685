"""The verdict cache: where it lives and what goes into its keys."""

from __future__ import annotations

import sys

from vtbisect.cache import Knobs, make_key, verdict_env


def test_key_env_has_the_knobs_but_not_vtbisects_own_settings_nor_path() -> None:
    env = {"VT_CPU_THREADS": "2", "VT_BISECT_CACHE_DIR": "/tmp/x", "PATH": "/bin", "HOME": "/home/u"}
    # PATH is not a knob: where it resolves the command is part of the judge's identity instead.
    assert verdict_env(env) == {"VT_CPU_THREADS": "2"}
    assert make_key("t", (), "o", {**env, "PATH": "/opt/other:/bin"}, 1).digest() == make_key("t", (), "o", env, 1).digest()
    moved = make_key("t", (), "o", {**env, "VT_BISECT_CACHE_DIR": "/elsewhere"}, 1)
    assert moved.digest() == make_key("t", (), "o", env, 1).digest()
    assert make_key("t", (), "o", {**env, "VT_CPU_THREADS": "4"}, 1).digest() != moved.digest()


def test_cache_folder_from_the_environment_variable(make_history, kit, vtbisect, judge_script, tmp_path):
    repo = make_history()
    kit.linear_history(repo, 10, {6: "a.txt"})
    folder = tmp_path / "elsewhere"
    env = {"VT_BISECT_CACHE_DIR": str(folder)}
    first = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", sys.executable, str(judge_script), env=env)
    assert first.code == 1, first.stderr
    assert list((folder / "verdicts").rglob("*.json"))
    assert not (repo.path / ".git" / "vtbisect").exists()
    again = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", sys.executable, str(judge_script), env=env)
    assert again.record["evaluations"] == 0 and again.culprits == first.culprits
    knob = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", sys.executable, str(judge_script),
                    env={**env, "VT_CPU_THREADS": "3"})
    assert knob.record["evaluations"] > 0, "an engine knob is part of the verdict's key"


def test_a_suites_knob_prefixes_and_named_knobs_select_the_key_env() -> None:
    env = {"SVC_DTYPE": "bf16", "VT_CPU_THREADS": "2", "PINNED": "1", "OTHER": "x"}
    knobs = Knobs(prefixes=("SVC_",), named=frozenset({"PINNED"}))
    assert verdict_env(env, knobs) == {"PINNED": "1", "SVC_DTYPE": "bf16"}
    base = make_key("t", (), "o", env, 1, knobs=knobs).digest()
    assert make_key("t", (), "o", {**env, "SVC_DTYPE": "f32"}, 1, knobs=knobs).digest() != base
    assert make_key("t", (), "o", {**env, "OTHER": "y"}, 1, knobs=knobs).digest() == base


def test_a_run_waits_for_another_runs_lock_only_as_long_as_told(make_history, kit, vtbisect, judge_script):
    """Two runs on one cache folder take turns; a run whose turn does not come within
    VT_BISECT_LOCK_TIMEOUT seconds ends with exit 3 naming the lock and the way out, leaving no
    worktree behind (the lock's holder here is a real process holding the real lock file)."""
    import subprocess
    import sys

    from tests.bisect.conftest import leftover_worktrees, snapshot

    repo = make_history()
    kit.linear_history(repo, 4, {2: "a.txt"})
    lock = repo.path / ".git" / "vtbisect" / "run.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from filelock import FileLock; l = FileLock(sys.argv[1]); l.acquire(); "
        "print('held', flush=True); time.sleep(120)"), str(lock)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        before = snapshot(repo.path)
        ran = vtbisect(repo.path, "HEAD~4..HEAD", "--", sys.executable, str(judge_script),
                       env={"VT_BISECT_LOCK_TIMEOUT": "1"})
        assert ran.code == 3, ran.stderr
        assert "run.lock" in ran.stderr and "VT_BISECT_LOCK_TIMEOUT" in ran.stderr and "--cache-dir" in ran.stderr
        assert leftover_worktrees(repo.path) == []
        assert snapshot(repo.path) == before
        bad = vtbisect(repo.path, "HEAD~4..HEAD", "--", sys.executable, str(judge_script),
                       env={"VT_BISECT_LOCK_TIMEOUT": "soon"})
        assert bad.code == 2 and "VT_BISECT_LOCK_TIMEOUT='soon'" in bad.stderr
    finally:
        holder.kill()
        holder.wait()
    ran = vtbisect(repo.path, "HEAD~4..HEAD", "--", sys.executable, str(judge_script),
                   env={"VT_BISECT_LOCK_TIMEOUT": "1"})
    assert ran.code == 1 and ran.culprits[0]["subject"] == "break a.txt at 2", ran.stderr
