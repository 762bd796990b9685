"""The verdict cache: where it lives and what goes into its keys."""

from __future__ import annotations

import sys

from vtbisect.cache import make_key, verdict_env


def test_key_env_has_the_knobs_but_not_vtbisects_own_settings() -> None:
    env = {"VT_CPU_THREADS": "2", "VT_BISECT_CACHE_DIR": "/tmp/x", "PATH": "/bin", "HOME": "/home/u"}
    assert verdict_env(env) == {"PATH": "/bin", "VT_CPU_THREADS": "2"}
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
