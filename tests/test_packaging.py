"""The source distribution is complete enough to run the tests from it: it carries the three packages
(with py.typed), the goldens, docs, tests and benchmarks, the licence text, and metadata declaring
the SPDX licence. The sdist is built by calling setuptools' PEP 517 hook in a subprocess, in a copy of
the tree, with the backend installed in this venv (no network, no build isolation)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHIPPED_FOLDERS = ("docs", "goldens", "tests", "benchmarks")
JUNK = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".venv", ".hypothesis", ".pytest_cache",
                              ".ruff_cache", ".mypy_cache", "build", "dist", ".vtgate-cache", ".vtbisect")

BUILD_SDIST = "import sys; from setuptools import build_meta; print(build_meta.build_sdist(sys.argv[1]))"


def _wanted(folder: str) -> set[str]:
    """Every file of a shipped folder as it lies in this tree (bytecode caches aside)."""
    return {
        path.relative_to(REPO).as_posix()
        for path in (REPO / folder).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
        and not any(part.startswith(".") for part in path.relative_to(REPO).parts)
    }


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> tuple[set[str], str]:
    """Member names (without the top folder) and PKG-INFO of a freshly built sdist."""
    work = tmp_path_factory.mktemp("sdist")
    tree = work / "tree"
    shutil.copytree(REPO, tree, ignore=JUNK)
    shutil.rmtree(tree / ".git", ignore_errors=True)
    (tree / ".git").unlink(missing_ok=True)  # a worktree's .git is a file
    out = work / "dist"
    out.mkdir()
    done = subprocess.run([sys.executable, "-c", BUILD_SDIST, str(out)], cwd=tree, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    name = done.stdout.strip().splitlines()[-1]
    with tarfile.open(out / name) as archive:
        members = archive.getnames()
        top = members[0].split("/")[0]
        info = archive.extractfile(f"{top}/PKG-INFO")
        assert info is not None
        pkg_info = info.read().decode("utf-8")
    return {m.split("/", 1)[1] for m in members if "/" in m}, pkg_info


def test_sdist_carries_every_file_the_tests_read(sdist: tuple[set[str], str]) -> None:
    members, _ = sdist
    for folder in SHIPPED_FOLDERS:
        missing = _wanted(folder) - members
        assert not missing, f"{folder}/ files missing from the sdist: {sorted(missing)[:10]}"
    for path in ("pyproject.toml", "README.md", "LICENSE", ".ci/run", "goldens/gates.toml",
                 "docs/schemas/check.schema.json", "tests/test_packaging.py"):
        assert path in members


def test_sdist_carries_the_three_packages_with_their_type_markers(sdist: tuple[set[str], str]) -> None:
    members, _ = sdist
    for package, entry in (("engine/vtengine", "cli.py"), ("gates/vtgate", "cli/main.py"),
                           ("bisect/vtbisect", "cli.py")):
        assert f"{package}/__init__.py" in members
        assert f"{package}/py.typed" in members
        assert f"{package}/{entry}" in members


def test_sdist_leaves_out_caches_and_bytecode(sdist: tuple[set[str], str]) -> None:
    members, _ = sdist
    assert not [m for m in members if "__pycache__" in m or m.endswith(".pyc") or m.startswith(".venv/")]


def test_metadata_declares_the_spdx_licence_and_ships_its_text(sdist: tuple[set[str], str]) -> None:
    _, pkg_info = sdist
    assert "License-Expression: Apache-2.0" in pkg_info.splitlines()
    assert "License-File: LICENSE" in pkg_info.splitlines()
    assert "Classifier: Typing :: Typed" in pkg_info.splitlines()
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text  # the full text, not a pointer to it


# --- the docs stand alone --------------------------------------------------------------------------

LINK = re.compile(r"\]\(([^)\s]+)\)")
OUTSIDE_NOTES = ("DESIGN" + ".md", "../" + "shared")  # split so this file does not cite them itself


def _slug(heading: str) -> str:
    """GitHub's anchor for a markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    anchors, fenced = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            anchors.add(_slug(line.lstrip("#")))
    return anchors


def _pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def test_every_link_in_the_docs_leads_to_a_file_and_heading_of_the_repo() -> None:
    broken = []
    for page in _pages():
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            path_part, _, anchor = target.partition("#")
            destination = (page.parent / path_part).resolve() if path_part else page
            if not destination.exists():
                broken.append(f"{page.name}: {target} (no such file)")
            elif anchor and destination.suffix == ".md" and anchor not in _anchors(destination):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert not broken, broken


def test_docs_and_code_never_cite_notes_outside_the_repo() -> None:
    citing = []
    for folder in ("docs", "gates", "bisect", "engine", "tests", "benchmarks", "goldens"):
        for path in (REPO / folder).rglob("*"):
            if path.is_file() and path.suffix in (".md", ".py", ".toml", ".json", ".diff") and "__pycache__" not in path.parts:
                text = path.read_text(encoding="utf-8", errors="replace")
                citing += [f"{path.relative_to(REPO)} cites {note}" for note in OUTSIDE_NOTES if note in text]
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    citing += [f"README.md cites {note}" for note in OUTSIDE_NOTES if note in readme]
    assert not citing, citing
