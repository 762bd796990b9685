"""The source tree hash of docs/contracts.md section 2, re-derived here independently, and the
mixed-imports check."""

from __future__ import annotations

import hashlib
import sys
import types
from pathlib import Path

import pytest
from vtengine.provenance import MixedImportsError, check_single_tree, package_dir, source_tree_hash


def make_tree(root: Path) -> None:
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "__pycache__").mkdir()
    (root / ".hidden").mkdir()
    (root / "pkg" / "a.py").write_text("A = 1\n")
    (root / "pkg" / "sub" / "b.py").write_text("B = 2\n")
    (root / "pkg" / "__pycache__" / "a.cpython-311.py").write_text("junk")
    (root / ".hidden" / "c.py").write_text("junk")
    (root / "pkg" / "notes.txt").write_text("not python")
    (root / "top.py").write_text("T = 3\n")


def by_hand(files: dict[str, bytes]) -> str:
    digest = hashlib.sha256()
    for rel in sorted(files):
        digest.update(rel.encode() + b"\0" + hashlib.sha256(files[rel]).digest())
    return digest.hexdigest()


def test_hash_covers_exactly_the_py_files_outside_hidden_and_pycache(tmp_path: Path) -> None:
    make_tree(tmp_path)
    want = by_hand({"pkg/a.py": b"A = 1\n", "pkg/sub/b.py": b"B = 2\n", "top.py": b"T = 3\n"})
    assert source_tree_hash(tmp_path) == want


def test_hash_changes_with_one_byte_and_with_a_rename(tmp_path: Path) -> None:
    make_tree(tmp_path)
    before = source_tree_hash(tmp_path)
    (tmp_path / "top.py").write_text("T = 4\n")
    edited = source_tree_hash(tmp_path)
    (tmp_path / "top.py").rename(tmp_path / "top2.py")
    assert len({before, edited, source_tree_hash(tmp_path)}) == 3


def test_engine_tree_passes_the_mixed_imports_check() -> None:
    check_single_tree(package_dir())


def test_a_vtengine_module_from_another_tree_is_detected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stray = types.ModuleType("vtengine.stray")
    stray.__file__ = str(tmp_path / "other" / "vtengine" / "stray.py")
    monkeypatch.setitem(sys.modules, "vtengine.stray", stray)
    with pytest.raises(MixedImportsError, match="vtengine.stray"):
        check_single_tree(package_dir())
