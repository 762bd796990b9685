"""The record names commits by full ids (so its reproduce command bisects the same range after the
branch moves on), and the BLAS / OpenMP thread counts are part of the verdict cache key and recorded."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from vtbisect.cache import THREAD_NAMES, make_key

FULL_RANGE = re.compile(r"^[0-9a-f]{40}\.\.[0-9a-f]{40}$")


def test_reproduce_command_bisects_the_original_range_after_new_commits(make_history, kit, vtbisect, judge_script,
                                                                        tmp_path):
    repo = make_history()
    kit.linear_history(repo, 12, {7: "a.txt"})
    good, bad, culprit = repo.shas[0], repo.shas[-1], repo.shas[8]
    kit.git(repo.path, "tag", "last-good", good)
    evidence = tmp_path / "evidence"
    first = vtbisect(repo.path, "last-good..main", "--evidence", str(evidence), "--", sys.executable, str(judge_script))
    assert first.code == 1, first.stderr
    assert [c["commit"] for c in first.culprits] == [culprit]

    recipe = first.record["recipe"]
    assert (first.record["good"], first.record["bad"]) == (good, bad)
    assert recipe["range"] == f"{good}..{bad}" and recipe["range_as_given"] == "last-good..main"
    reproduce = recipe["reproduce"]
    words = reproduce.split()
    assert f"{good}..{bad}" in words and "last-good..main" not in reproduce
    assert [w for w in words if ".." in w and not w.startswith("/")] == [f"{good}..{bad}"]
    assert all(FULL_RANGE.match(w) for w in words if ".." in w and not w.startswith("/"))
    on_disk = json.loads((evidence / "bisect.json").read_text())
    assert on_disk["recipe"]["reproduce"] == reproduce and on_disk["recipe"]["range"] == f"{good}..{bad}"
    assert reproduce in (evidence / "README-bisect.md").read_text()

    # The branch moves on: the last commit repairs a.txt, so `last-good..main` now has a green BAD.
    repo.filler(3, "later")
    repo.commit({"a.txt": "ok\n"}, "repair a.txt")
    moved = vtbisect(repo.path, "last-good..main", "--", sys.executable, str(judge_script))
    assert moved.record["bad"] == repo.shas[-1] != bad, "the names now mean another range"

    venv_bin = str(Path(sys.executable).parent)
    again = subprocess.run(["sh", "-c", reproduce], capture_output=True, text=True, timeout=120,
                           env={**os.environ, "PATH": venv_bin + os.pathsep + os.environ["PATH"], "NO_COLOR": "1"})
    assert again.returncode == 1, again.stderr
    replayed = json.loads((evidence / "bisect.json").read_text())
    assert (replayed["good"], replayed["bad"]) == (good, bad)
    assert replayed["candidates"] == first.record["candidates"] == 12
    assert [c["commit"] for c in replayed["culprits"]] == [culprit]
    assert {s["commit"] for s in replayed["steps"]} <= set(repo.shas[:13]), "no commit after the original BAD"


@pytest.mark.parametrize("name", THREAD_NAMES)
def test_each_thread_count_variable_is_in_the_cache_key(name):
    base = make_key("tree", (), "oracle", {"PATH": "/bin"}, 1)
    assert make_key("tree", (), "oracle", {"PATH": "/bin", name: "4"}, 1).digest() != base.digest()
    assert (make_key("tree", (), "oracle", {"PATH": "/bin", name: "4"}, 1).digest()
            != make_key("tree", (), "oracle", {"PATH": "/bin", name: "2"}, 1).digest())


def test_changing_omp_threads_is_a_cache_miss_and_is_recorded(make_history, kit, vtbisect, judge_script, tmp_path):
    repo = make_history()
    kit.linear_history(repo, 10, {4: "a.txt"})
    args = (f"{repo.shas[0]}..main", "--", sys.executable, str(judge_script))
    clean_env = {k: v for k, v in os.environ.items() if k not in THREAD_NAMES}  # the caller's own stay out

    def run(**threads: str):
        json_path = tmp_path / f"run-{len(list(tmp_path.glob('run-*')))}.json"
        done = subprocess.run([*kit.VTBISECT, "run", "--json", str(json_path), *args], cwd=repo.path,
                              capture_output=True, text=True, timeout=120,
                              env={**clean_env, "NO_COLOR": "1", **threads})
        assert done.returncode == 1, done.stderr
        return json.loads(json_path.read_text())

    first = run(OMP_NUM_THREADS="1")
    assert first["evaluations"] > 0
    assert first["recipe"]["env"]["OMP_NUM_THREADS"] == "1"
    assert first["recipe"]["threads"] == {"OPENBLAS_NUM_THREADS": None, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": None}
    same = run(OMP_NUM_THREADS="1")
    assert same["evaluations"] == 0, "same thread count: every verdict from the cache"
    changed = run(OMP_NUM_THREADS="2")
    assert changed["evaluations"] == first["evaluations"], "another thread count: judged afresh"
    assert changed["recipe"]["env"]["OMP_NUM_THREADS"] == "2"
    assert [c["commit"] for c in changed["culprits"]] == [c["commit"] for c in first["culprits"]] == [repo.shas[5]]
