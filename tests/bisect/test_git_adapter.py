"""vtbisect.gitrepo is vtbisect's only door to git: the rule, checked over the package source, and
what the adapter answers on real repositories compared with git's own answers."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
import vtbisect
from vtbisect.gitrepo import GitError, GitRepo, repository
from vtbisect.revisions import describe_many, pinned_argv, resolve_range

ADAPTER = "gitrepo.py"


def git_access(source: str) -> list[str]:
    """How ``source`` reaches git other than through the adapter: gitpython imported, a ``"git"``
    argument (an argv for subprocess, shutil.which, ...), or a shell string starting with ``git ``."""
    found = []
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value) for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body
        and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names if a.name.split(".")[0] == "git"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "git" and not node.level:
            found.append(f"line {node.lineno}: from {node.module} import ...")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if node.value == "git":
                found.append(f"line {node.lineno}: 'git' as an argument")
        elif isinstance(node, ast.Call):
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.startswith("git "):
                    found.append(f"line {node.lineno}: shell string {arg.value!r}")
    return found


def package_sources() -> list[Path]:
    root = Path(vtbisect.__file__).parent
    return sorted(root.rglob("*.py"))


def test_no_vtbisect_module_but_the_adapter_reaches_git():
    sources = package_sources()
    assert {p.name for p in sources} >= {ADAPTER, "revisions.py", "worktrees.py", "oracle.py", "driver.py"}
    offenders = {
        str(path.relative_to(path.parents[1])): hits
        for path in sources if path.name != ADAPTER
        for hits in [git_access(path.read_text(encoding="utf-8"))] if hits
    }
    assert offenders == {}


@pytest.mark.parametrize("source", [
    "import subprocess\nsubprocess.run(['git', '-C', repo, 'status'])",
    "import git\nrepo = git.Repo('.')",
    "from git import Repo",
    "from git.exc import GitCommandError",
    "import os\nos.system('git log --oneline')",
    "import shutil\nexe = shutil.which('git')",
])
def test_the_rule_catches_each_way_of_reaching_git(source):
    assert git_access(source)


def test_the_rule_lets_text_about_git_through():
    source = '"""Uses ``git worktree add``."""\nMESSAGE = "git failed: see the log"\nprint(f"git bisect {word}")'
    assert git_access(source) == []


def test_git_error_names_the_command_and_carries_gits_stderr(make_history):
    repo = make_history()
    repo.commit({"a.txt": "1\n"}, "first")
    taken = repo.path / "a.txt"
    with pytest.raises(GitError) as caught:
        repository(repo.path).add_worktree(taken, "HEAD")
    error = caught.value
    assert error.command[:3] == ("git", "worktree", "add") and str(taken) in error.command
    assert "already exists" in error.stderr
    assert "git worktree add" in str(error) and "already exists" in str(error) and str(repo.path) in str(error)
    assert not error.stderr.startswith("\n") and "stderr:" not in error.stderr


def test_commit_records_match_gits_own_subject_tree_and_parents(make_history, kit):
    repo = make_history()
    repo.commit({"a.txt": "1\n"}, "plain subject")
    repo.commit({"a.txt": "2\n"}, "a subject that goes on\nonto a second line   ", body="Body text.\n\nMore.")
    kit.git(repo.path, "checkout", "-q", "-b", "side", repo.shas[0])
    side = repo.commit({"b.txt": "x\n"}, "on the side")
    kit.git(repo.path, "checkout", "-q", "main")
    kit.git(repo.path, "merge", "-q", "--no-ff", "-m", "merge side\n\nwith a body", "side")
    merge = kit.git(repo.path, "rev-parse", "HEAD")
    shas = [*repo.shas[:2], side, merge]
    records = describe_many(repo.path, shas)
    for sha, record in zip(shas, records, strict=True):
        subject, tree, parents = kit.git(repo.path, "show", "-s", "--format=%s%x00%T%x00%P", sha).split("\0")
        assert (record.sha, record.subject, record.tree, record.parents) == (sha, subject, tree, tuple(parents.split()))
    assert records[1].subject == "a subject that goes on onto a second line"


def test_range_candidates_are_the_first_parent_chain_git_lists(make_history, kit):
    repo = make_history()
    kit.linear_history(repo, 5, {})
    kit.git(repo.path, "checkout", "-q", "-b", "side", repo.shas[2])
    repo.commit({"s.txt": "1\n"}, "side work")
    kit.git(repo.path, "checkout", "-q", "main")
    kit.git(repo.path, "merge", "-q", "--no-ff", "-m", "merge", "side")
    rng = resolve_range(repo.path, f"{repo.shas[0]}..main")
    listed = kit.git(repo.path, "rev-list", "--first-parent", "--reverse", f"{repo.shas[0]}..main").split()
    assert [c.sha for c in rng.candidates] == listed
    touching = resolve_range(repo.path, f"{repo.shas[0]}..main", pathspec=["notes/2.txt"])
    assert [c.sha for c in touching.candidates] == [repo.shas[3], listed[-1]]


def test_files_of_a_commit_are_read_from_git_objects(make_history):
    repo = make_history()
    first = repo.commit({"goldens/x.json": "{}\n", "goldens/deep/y.bin": "yy", "top.toml": "a = 1\n"}, "pins")
    repo.commit({"goldens/x.json": None, "top.toml": "a = 2\n"}, "later")
    history = GitRepo(repo.path)
    try:
        assert history.read_file(first, "top.toml") == b"a = 1\n"
        assert history.read_file(repo.shas[-1], "top.toml") == b"a = 2\n"
        assert history.read_file(repo.shas[-1], "goldens/x.json") is None
        assert history.read_file(first, "goldens") is None  # a folder is not a file
        assert sorted(history.list_files(first, "goldens/")) == ["goldens/deep/y.bin", "goldens/x.json"]
        assert history.list_files(repo.shas[-1], "goldens") == ["goldens/deep/y.bin"]
        assert history.list_files(first, "missing") == []
    finally:
        history.close()


def test_pinned_argv_names_the_range_and_suite_revision_by_full_ids(make_history, kit):
    repo = make_history()
    kit.linear_history(repo, 4, {})
    kit.git(repo.path, "tag", "v1", repo.shas[1])
    rng = resolve_range(repo.path, "v1..main")
    argv = ["run", "v1..main", "--suite-from", "main", "--gate", "alpha", "--", "tests/"]
    assert pinned_argv(argv, rng, "main") == [
        "run", f"{repo.shas[1]}..{repo.shas[-1]}", "--suite-from", repo.shas[-1], "--gate", "alpha", "--", "tests/"]
    assert pinned_argv(["run", "--suite-from=v1", "v1..main"], rng, "v1") == [
        "run", f"--suite-from={repo.shas[1]}", f"{repo.shas[1]}..{repo.shas[-1]}"]


def test_unknown_revision_is_exit_2_with_the_fix(make_history, kit, judge_script):
    repo = make_history()
    kit.linear_history(repo, 3, {})
    ran = kit.run_vtbisect(repo.path, "run", "foo..main", "--", sys.executable, str(judge_script))
    assert ran.code == 2, ran.stderr
    assert "unknown GOOD revision 'foo'" in ran.stderr and "fix:" in ran.stderr


def test_a_failing_git_command_is_exit_3_naming_it_with_gits_stderr_and_nothing_left(make_history, kit):
    repo = make_history()
    kit.linear_history(repo, 4, {2: "a.txt"})
    hook = repo.path / ".git" / "hooks" / "post-checkout"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text('#!/bin/sh\necho "hook refuses this checkout" >&2\nexit 1\n')
    hook.chmod(0o755)
    before = kit.snapshot(repo.path)
    ran = kit.run_vtbisect(repo.path, "run", f"{repo.shas[0]}..main", "--", sys.executable, "-c", "pass")
    assert ran.code == 3, ran.stderr
    assert "git failed" in ran.stderr and "git worktree add --detach" in ran.stderr
    assert "hook refuses this checkout" in ran.stderr
    assert kit.snapshot(repo.path) == before
    assert kit.leftover_worktrees(repo.path) == []


def test_without_git_on_path_vtbisect_says_so_instead_of_a_traceback(make_history, kit, tmp_path):
    repo = make_history()
    kit.linear_history(repo, 3, {})
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    ran = kit.run_vtbisect(repo.path, "run", f"{repo.shas[0]}..main", "--", "true", env={"PATH": str(empty)})
    assert ran.code == 3, ran.stderr
    assert "git is not installed or not on PATH" in ran.stderr and "Traceback" not in ran.stderr
