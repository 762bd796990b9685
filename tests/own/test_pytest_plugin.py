"""pytest --vtgate (the pytest11 entry point): the suite's gates become test items next to the
project's own tests, pass when green and fail with the gate's verdict; inert without the option."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # every test runs a nested pytest over a whole suite: .ci/run runs it with -m slow

GATE = """\
[[gate]]
name  = "logits-exact"
kind  = "golden"
mode  = "logits"
probe = { cmd = ["{python}", "engine/tinyengine.py"] }
args  = { prompt = "hi", tokens = 6 }
"""


def _pytest(project, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("TINY_", "PYTEST_"))}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
                          cwd=project.root, capture_output=True, text=True, env={**clean, **(env or {})}, timeout=300)


def _setup(project) -> None:
    project.write_suite(GATE)
    project.bless("logits-exact")
    (project.root / "tests").mkdir()
    (project.root / "tests" / "test_plain.py").write_text("def test_plain():\n    assert True\n")


def test_gates_run_as_items_next_to_the_projects_tests(project) -> None:
    _setup(project)
    done = _pytest(project, "--vtgate", "-rA")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout
    assert "PASSED vtgate.toml::logits-exact" in done.stdout


def test_a_red_gate_fails_its_item_with_the_verdict(project) -> None:
    _setup(project)
    done = _pytest(project, "--vtgate", env={"TINY_FAST_EXP": "1"})
    assert done.returncode == 1
    assert "red: logits differ from step 0" in done.stdout
    assert "1 failed, 1 passed" in done.stdout


def test_without_the_option_no_gate_is_collected(project) -> None:
    _setup(project)
    done = _pytest(project, env={"TINY_FAST_EXP": "1"})
    assert done.returncode == 0 and "1 passed" in done.stdout


def test_gates_are_selected_with_k_like_tests(project) -> None:
    _setup(project)
    done = _pytest(project, "--vtgate", "-k", "golden", "-rA")
    assert done.returncode == 0, done.stdout
    assert "1 passed, 1 deselected" in done.stdout
