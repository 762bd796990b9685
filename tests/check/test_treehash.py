"""vtgate's source tree hash agrees with the engine's (docs/contracts.md section 2), and vtgate knows
engines only through probes: nothing under gates/vtgate imports vtengine."""

from __future__ import annotations

import ast
from pathlib import Path

import vtengine
from vtengine.provenance import source_tree_hash as engine_hash
from vtgate.treehash import source_tree_hash

GATES = Path(__file__).resolve().parents[2] / "gates" / "vtgate"


def test_hashes_agree_on_the_engine_package() -> None:
    package = Path(vtengine.__file__).parent
    assert source_tree_hash(package) == engine_hash(package)


def test_hashes_agree_on_the_skipping_rules(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    (tmp_path / "pkg" / "sub" / "b.py").write_text("y = 2\n")
    (tmp_path / "pkg" / "notes.txt").write_text("not python\n")
    (tmp_path / "pkg" / "__pycache__").mkdir()
    (tmp_path / "pkg" / "__pycache__" / "c.py").write_text("skipped\n")
    (tmp_path / "pkg" / ".hidden").mkdir()
    (tmp_path / "pkg" / ".hidden" / "d.py").write_text("skipped\n")
    before = source_tree_hash(tmp_path / "pkg")
    assert before == engine_hash(tmp_path / "pkg")
    (tmp_path / "pkg" / "__pycache__" / "c.py").write_text("changed, still skipped\n")
    (tmp_path / "pkg" / "notes.txt").write_text("changed, not python\n")
    assert source_tree_hash(tmp_path / "pkg") == before
    (tmp_path / "pkg" / "sub" / "b.py").write_text("y = 3\n")
    assert source_tree_hash(tmp_path / "pkg") != before
    assert source_tree_hash(tmp_path / "pkg") == engine_hash(tmp_path / "pkg")


def test_vtgate_never_imports_vtengine() -> None:
    offenders = []
    for path in GATES.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path}:{node.lineno}" for name in names if name.split(".")[0] == "vtengine"]
    assert offenders == []
