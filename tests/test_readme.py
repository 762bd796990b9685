"""The README's two Quick start commands are the ones CI runs."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _quick_start_commands() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S)]


def test_readme_has_exactly_two_setup_commands() -> None:
    commands = _quick_start_commands()
    assert len(commands) == 2
    assert all("\n" not in command for command in commands)
    assert commands[0].endswith("vtgate check")
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci_lines = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert _quick_start_commands()[1] in ci_lines


def test_ci_runs_the_slow_tests_the_readme_command_leaves_out() -> None:
    import shlex

    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    addopts = shlex.split(re.search(r'^addopts = "(.*)"$', pyproject, flags=re.M).group(1))
    assert addopts[addopts.index("-m") + 1] == "not slow"
    assert ".venv/bin/python -m pytest -m slow" in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def test_every_relative_link_in_the_readme_and_docs_resolves() -> None:
    broken = []
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(REPO)} -> {target}")
    assert broken == [], broken
