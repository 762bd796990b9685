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


# ---- no import cycles, no private names across modules ----------------------------------------------

def module_files(source_roots: dict[str, Path]) -> dict[str, Path]:
    """Every module of the three packages by dotted name (a package by its own name)."""
    found = {}
    for package, folder in source_roots.items():
        for path in folder.rglob("*.py"):
            parts = [package, *path.relative_to(folder).with_suffix("").parts]
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _absolute(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def import_graph(modules: dict[str, Path]) -> tuple[dict[str, set[str]], list[str]]:
    """Module -> the project modules it imports (anywhere in it: lazy and TYPE_CHECKING imports count,
    a cycle hidden in a function is still a cycle), and every ``from M import _name`` of another
    module's private name, as ``file:line: imports M._name``."""
    graph: dict[str, set[str]] = {}
    private: list[str] = []
    for module, path in modules.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                deps |= {alias.name for alias in node.names if alias.name in modules}
            elif isinstance(node, ast.ImportFrom):
                target = _absolute(module, node, path.name == "__init__.py")
                for alias in node.names:
                    if f"{target}.{alias.name}" in modules:
                        deps.add(f"{target}.{alias.name}")
                    elif target in modules:
                        deps.add(target)
                        if alias.name.startswith("_") and not alias.name.startswith("__"):
                            private.append(f"{path}:{node.lineno}: imports {target}.{alias.name}")
        graph[module] = deps - {module}
    return graph, private


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_is_part_of_an_import_cycle() -> None:
    graph, _ = import_graph(module_files(repo_roots(REPO)))
    assert len(graph) > 100  # the scan saw the packages, so an empty list is not an empty scan
    assert cycles(graph) == []


def test_no_module_imports_another_modules_private_name() -> None:
    _, private = import_graph(module_files(repo_roots(REPO)))
    assert private == []


def test_a_lazy_import_cycle_and_a_private_import_are_caught(tmp_path: Path) -> None:
    for folder in PACKAGES.values():
        shutil.copytree(REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    gates = tmp_path / PACKAGES["vtgate"]
    (gates / "planted_a.py").write_text("from vtgate.planted_b import helper\n\n\ndef _secret():\n    return 1\n",
                                        encoding="utf-8")
    (gates / "planted_b.py").write_text("def helper():\n    from vtgate.planted_a import _secret\n    return _secret()\n",
                                        encoding="utf-8")
    graph, private = import_graph(module_files(repo_roots(tmp_path)))
    assert cycles(graph) == [["vtgate.planted_a", "vtgate.planted_b"]]
    assert private == [f"{gates / 'planted_b.py'}:2: imports vtgate.planted_a._secret"]


def test_vtgates_top_level_stays_a_short_list() -> None:
    """The house: parts live in sub-packages named after what they hold (vtgate/__init__.py maps them);
    at most 16 modules at the top, and no ``probe.py`` beside a ``probes.py``."""
    top = sorted(p.name for p in (REPO / PACKAGES["vtgate"]).glob("*.py"))
    assert len(top) <= 16, top
    assert "probes.py" not in top
    for package in (p for p in (REPO / PACKAGES["vtgate"]).iterdir() if (p / "__init__.py").exists()):
        assert ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))), package
