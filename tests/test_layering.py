"""Dependencies point one way (docs/contracts.md, "Parts and flow"): vtbisect may import vtgate;
vtgate imports neither vtbisect nor vtengine (it knows engines only through probes named in a suite);
vtengine imports neither. Every module's imports are read with ``ast``, lazy imports inside functions
and ``importlib.import_module("...")`` / ``__import__("...")`` with a literal name included."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = {"vtengine": "engine/vtengine", "vtgate": "gates/vtgate", "vtbisect": "bisect/vtbisect"}
FORBIDDEN: dict[str, frozenset[str]] = {
    "vtengine": frozenset({"vtgate", "vtbisect"}),
    "vtgate": frozenset({"vtbisect", "vtengine"}),
    "vtbisect": frozenset({"vtengine"}),
}
DYNAMIC_IMPORTERS = frozenset({"import_module", "__import__"})


def imported_names(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, absolute module name) for every import anywhere in the module; relative imports stay
    inside their own package and are skipped."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            first = node.args[0]
            if name in DYNAMIC_IMPORTERS and isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.append((node.lineno, first.value))
    return found


def violations(source_roots: dict[str, Path]) -> list[str]:
    """Every import that breaks the layering, as ``file:line: package imports target``."""
    problems = []
    for package, folder in source_roots.items():
        for path in sorted(folder.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for line, module in imported_names(tree):
                top = module.split(".")[0]
                if top in FORBIDDEN[package]:
                    problems.append(f"{path}:{line}: {package} imports {module}")
    return problems


def repo_roots(base: Path) -> dict[str, Path]:
    return {package: base / folder for package, folder in PACKAGES.items()}


def test_the_three_packages_import_one_way_only() -> None:
    assert violations(repo_roots(REPO)) == []


def test_vtbisect_really_uses_vtgate() -> None:
    """The checker sees the allowed direction, so an empty violation list is not an empty scan."""
    seen = {module.split(".")[0] for path in (REPO / PACKAGES["vtbisect"]).rglob("*.py")
            for _, module in imported_names(ast.parse(path.read_text(encoding="utf-8")))}
    assert "vtgate" in seen


def test_a_lazy_import_of_vtbisect_inside_vtgate_is_caught(tmp_path: Path) -> None:
    for folder in PACKAGES.values():
        shutil.copytree(REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    planted = tmp_path / PACKAGES["vtgate"] / "planted.py"
    planted.write_text("def judge():\n    from vtbisect.driver import Bisection\n    return Bisection\n",
                       encoding="utf-8")
    assert violations(repo_roots(tmp_path)) == [f"{planted}:2: vtgate imports vtbisect.driver"]


def test_engine_importing_vtgate_and_a_dynamic_import_of_vtengine_are_caught(tmp_path: Path) -> None:
    for folder in PACKAGES.values():
        shutil.copytree(REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    engine = tmp_path / PACKAGES["vtengine"] / "planted.py"
    engine.write_text("import vtgate.exitcodes as codes\n", encoding="utf-8")
    gates = tmp_path / PACKAGES["vtgate"] / "planted.py"
    gates.write_text("import importlib\n\n\ndef probe():\n    return importlib.import_module('vtengine.probes')\n",
                     encoding="utf-8")
    assert sorted(violations(repo_roots(tmp_path))) == sorted([
        f"{engine}:1: vtengine imports vtgate.exitcodes",
        f"{gates}:5: vtgate imports vtengine.probes",
    ])
