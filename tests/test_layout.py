"""The layout promise of docs/contracts.md: three import packages from three folders, and the
folder bisect/ never shadows the standard library's bisect module."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
IMPORT_NAMES = ("vtengine", "vtgate", "vtbisect")
SOURCE_ROOTS = {"vtengine": "engine", "vtgate": "gates", "vtbisect": "bisect"}


def _run_from_repo_root(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_import_bisect_from_repo_root_gives_the_stdlib_module() -> None:
    # `python -c` puts the current directory first on sys.path: exactly where a bisect/ package
    # would shadow the stdlib module that `random` imports.
    out = _run_from_repo_root(
        "import random, bisect; import vtbisect; print(bisect.__file__); print(hasattr(bisect, 'insort'))"
    )
    bisect_file, has_insort = out.splitlines()
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    assert Path(bisect_file).resolve().parent == stdlib
    assert has_insort == "True"


def test_no_source_root_folder_is_itself_a_package() -> None:
    # If any of these had an __init__.py, `import <folder>` from the repo root would import it,
    # and for bisect/ that is the stdlib shadowing this layout exists to prevent.
    for folder in SOURCE_ROOTS.values():
        assert not (REPO / folder / "__init__.py").exists(), f"{folder}/__init__.py must not exist"


def test_no_top_level_import_name_is_a_stdlib_module() -> None:
    names = set(IMPORT_NAMES)
    for folder in SOURCE_ROOTS.values():
        names |= {p.name for p in (REPO / folder).iterdir() if p.is_dir() and (p / "__init__.py").exists()}
        names |= {p.stem for p in (REPO / folder).glob("*.py")}
    assert not names & set(sys.stdlib_module_names), names & set(sys.stdlib_module_names)


@pytest.mark.parametrize("name", IMPORT_NAMES)
def test_each_import_name_comes_from_its_folder(name: str) -> None:
    out = _run_from_repo_root(f"import {name}; print({name}.__file__)")
    assert Path(out).resolve() == (REPO / SOURCE_ROOTS[name] / name / "__init__.py").resolve()


def test_a_bisect_package_in_the_root_would_be_caught(tmp_path: Path) -> None:
    # The guard above is not vacuous: the same import, run where bisect/ *is* a package, shadows.
    (tmp_path / "bisect").mkdir()
    (tmp_path / "bisect" / "__init__.py").write_text("SHADOW = True\n")
    done = subprocess.run(
        [sys.executable, "-c", "import bisect; print(getattr(bisect, 'SHADOW', False))"],
        cwd=tmp_path, capture_output=True, text=True, check=True,
    )
    assert done.stdout.strip() == "True"
