"""Probes run under a known interpreter: ``{python}`` in a command probe is the interpreter vtgate
runs under (or ``[suite] python``), and ``[suite] python`` is resolved in the user's checkout, not in
the tree under test (a worktree or a patched copy has no virtualenv of its own)."""

from __future__ import annotations

import shutil
import stat
import sys
from pathlib import Path

import pytest

ECHO = ("import json, sys; print(json.dumps({'tokens': [1, 2], 'meta': {'interpreter': sys.executable}}))")
GATE = f"""\
[[gate]]
name  = "which-python"
kind  = "golden"
probe = {{ cmd = ["{{python}}", "-c", "{ECHO}"] }}
"""


def _wrapper(path: Path, marker: Path) -> None:
    """An interpreter of the user's project: records that it ran, then runs the real one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\necho "$@" >> "{marker}"\nexec "{sys.executable}" "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_python_placeholder_is_the_interpreter_vtgate_runs_under(project) -> None:
    project.write_suite(GATE, header="[suite]\ntimeout = 60\n")
    project.bless("which-python")
    done, report = project.check_json()
    assert done.returncode == 0, done.stderr
    done = project.vtgate("check", env={"PATH": "/nonexistent"})  # no python on PATH: only {python} finds one
    assert done.returncode == 0, done.stderr


def test_suite_python_is_resolved_in_the_users_checkout_not_in_the_tree_under_test(project, tmp_path: Path) -> None:
    marker = tmp_path / "ran-with-project-python"
    _wrapper(project.root / ".venv" / "bin" / "python", marker)
    project.write_suite(GATE, header='[suite]\ntimeout = 60\npython = ".venv/bin/python"\n')
    project.bless("which-python")
    assert marker.read_text().count("-c") == 1
    other = tmp_path / "worktree"
    shutil.copytree(project.root, other, ignore=shutil.ignore_patterns(".venv"))
    done = project.vtgate("check", "--root", str(other))
    assert done.returncode == 0, done.stderr
    assert marker.read_text().count("-c") == 2  # the checkout's interpreter ran the worktree's probe


@pytest.mark.parametrize(("fork_servers", "started"), [
    ("true", "-m vtgate.run.forkserver --zygote"),  # the fork servers' zygote, which forks each run
    ("false", "-m vtgate.run.child myprobes:echo"),  # a fresh interpreter per run
])
def test_callable_probes_run_under_suite_python_too(project, tmp_path: Path, fork_servers: str, started: str) -> None:
    marker = tmp_path / "ran"
    _wrapper(project.root / "venv" / "bin" / "python", marker)
    (project.root / "myprobes.py").write_text("def echo():\n    return {'tokens': [3]}\n")
    project.write_suite("""\
    [[gate]]
    name  = "callable"
    kind  = "golden"
    probe = "myprobes:echo"
    """, header=f'[suite]\ntimeout = 60\npythonpath = ["."]\npython = "venv/bin/python"\nfork_servers = {fork_servers}\n')
    project.bless("callable")
    assert started in marker.read_text()
    done = project.vtgate("check")
    assert done.returncode == 0, done.stderr
    assert marker.read_text().count(started) == 2


def test_a_missing_suite_python_is_a_configuration_error_naming_the_path(project) -> None:
    project.write_suite(GATE, header='[suite]\npython = ".venv/bin/python"\n')
    done = project.vtgate("check")
    assert done.returncode == 2
    assert "[suite] python = '.venv/bin/python'" in done.stderr
    assert str(project.root / ".venv" / "bin" / "python") in done.stderr
