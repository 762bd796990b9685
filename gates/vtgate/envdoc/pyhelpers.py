"""Env names built inside a Python helper from its parameter, resolved at the helper's call sites in
every module of the tree (``config.get("virtualenvs.in-project")`` -> ``POETRY_VIRTUALENVS_IN_PROJECT``
when ``Config.get`` reads ``os.getenv("POETRY_" + "_".join(k.upper().replace("-", "_") for k in
split_key(name)))``).

The name expression is evaluated by a small interpreter over pure string values: literals, module
constants (followed through imports), ``+``, ``%``, f-strings, ``.upper/.lower/.replace/.split/.join/
.strip/.format``..., slices, comprehensions over known lists, ``isinstance``/``list``/``str``/``len``,
and calls of module-level functions whose bodies are only assignments, ``if`` and ``return`` over
such values (``split_key``). Anything else is unknown and the call site gives no name. The tests of
the ``if`` statements around the read are evaluated too: a call whose argument makes one false
(``if keys[:2] == ["installer", "build-config-settings"]: ... else: os.getenv(env)``) reads nothing.

Which calls are calls of the helper (never a guess that could report a name the code cannot read):
- a function: ``f(...)`` where ``f`` is the function itself or imported from its module, ``mod.f(...)``;
- a method ``C.m``: ``self.m(...)``/``cls.m(...)`` in ``C`` or a class deriving from it, and
  ``x.m(...)`` where the class of ``x`` is inferred as ``C`` (or a subclass): a parameter or local
  annotated ``C`` (``C | None``, ``Optional[C]``, ``"C"``), a local assigned ``C(...)`` or a ``C``
  classmethod annotated ``-> C``, ``self.attr`` / ``obj.attr`` whose declared type (annotation,
  ``@property`` return annotation, or every assignment in the class inferring to ``C``) is ``C``,
  followed through base classes and other modules;
- a method name alone is never enough, even when ``def m(`` occurs once in the tree: ``x.read("a")``
  may be a file's ``read`` and ``x.get("a")`` a dict's. Such calls, when their argument is static, are
  counted in a note naming the first, never read.
An argument that is not static gives no read; a list argument with some literal and some unknown
elements (``["http-basic", repo, "username"]``) gives a family (``POETRY_HTTP_BASIC_*_USERNAME``)."""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from vtgate.envdoc.model import EnvRead, Expr, FileScan, PyHelper
from vtgate.envdoc.pyscan import call_argument, decode_python, import_origin, make_read, module_parts
from vtgate.envdoc.pyscan import collect_bindings as _collect_bindings

_Bindings = tuple[dict[str, list[ast.expr | None]], set[str]]
_BINDINGS: dict[int, tuple[list[ast.stmt], _Bindings]] = {}  # kept alive with its body, so ids stay unique


def collect_bindings(body: list[ast.stmt]) -> _Bindings:
    """pyscan.collect_bindings of a function body, computed once per body during one resolution."""
    cached = _BINDINGS.get(id(body))
    if cached is None:
        cached = _BINDINGS[id(body)] = (body, _collect_bindings(body))
    return cached[1]

_HOLE = "\x00"  # stands, inside a string value, for text not known statically


class _Unknown:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()
_STR_METHODS = {
    "upper", "lower", "replace", "strip", "lstrip", "rstrip", "split", "rsplit", "join", "format",
    "removeprefix", "removesuffix", "title", "capitalize", "casefold", "startswith", "endswith", "partition",
    "rpartition",
}
_TYPES: dict[str, type | tuple[type, ...]] = {
    "str": str, "list": tuple, "tuple": tuple, "Sequence": (str, tuple), "int": int, "bool": bool, "dict": (),
}
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MAX_DEPTH = 24
_MAX_ITEMS = 256


class _Module:
    """One Python module of the tree: its AST, imports (local name -> dotted origin), top-level
    functions and classes, and single-assigned module constants."""

    def __init__(self, parts: tuple[str, ...], shown: str, tree: ast.Module) -> None:
        self.parts, self.shown, self.tree = parts, shown, tree
        self.imports: dict[str, tuple[str, ...]] = {}
        package = parts if shown.endswith("__init__.py") else parts[:-1]
        stack: list[ast.AST] = list(tree.body)
        while stack:  # statements only (imports are statements): expressions are not walked
            node = stack.pop()
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.imports[alias.asname] = tuple(alias.name.split("."))
            elif isinstance(node, ast.ImportFrom):
                origin = import_origin(node, package)
                for alias in node.names:
                    if alias.name != "*":
                        self.imports[alias.asname or alias.name] = (*origin, alias.name)
            else:
                stack.extend(
                    child for child in ast.iter_child_nodes(node)
                    if isinstance(child, (ast.stmt, ast.excepthandler)) or type(child).__name__ == "match_case"
                )
        self.functions = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self.classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        self._bindings: tuple[dict[str, list[ast.expr | None]], set[str]] | None = None

    @property
    def assigned(self) -> dict[str, list[ast.expr | None]]:
        if self._bindings is None:
            self._bindings = collect_bindings(self.tree.body)
        return self._bindings[0]

    @property
    def bound(self) -> set[str]:
        if self._bindings is None:
            self._bindings = collect_bindings(self.tree.body)
        return self._bindings[1]


class _Tree:
    """The Python files of the scan, parsed lazily, found by dotted module name (a ``src/`` layout
    or another root matched on the trailing components, when that is unambiguous)."""

    def __init__(self, files: Sequence[tuple[Path, str]]) -> None:
        self.paths: dict[str, Path] = {}
        self.by_parts: dict[tuple[str, ...], list[str]] = {}
        for path, shown in files:
            if shown.endswith(".py"):
                self.paths[shown] = path
                parts = module_parts(shown)
                for start in range(len(parts)):
                    self.by_parts.setdefault(parts[start:], []).append(shown)
        self.texts: dict[str, str | None] = {}
        self.modules: dict[str, _Module | None] = {}

    def text(self, shown: str) -> str | None:
        if shown not in self.texts:
            try:
                self.texts[shown] = decode_python(self.paths[shown].read_bytes())
            except (OSError, UnicodeDecodeError, SyntaxError, LookupError, KeyError):
                self.texts[shown] = None
        return self.texts[shown]

    def module(self, shown: str) -> _Module | None:
        if shown not in self.modules:
            text = self.text(shown)
            module = None
            if text is not None:
                try:
                    module = _Module(module_parts(shown), shown, ast.parse(text))
                except (SyntaxError, ValueError, RecursionError, MemoryError):
                    module = None
            self.modules[shown] = module
        return self.modules[shown]

    def find(self, parts: tuple[str, ...]) -> _Module | None:
        candidates = self.by_parts.get(parts, [])
        return self.module(candidates[0]) if len(candidates) == 1 else None

    def lookup(self, origin: tuple[str, ...]) -> tuple[_Module, str] | None:
        """``pkg.mod.NAME`` -> (module pkg.mod, "NAME") when that module is in the tree."""
        if len(origin) < 2:
            return None
        module = self.find(origin[:-1])
        return (module, origin[-1]) if module is not None else None


def _same_module(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return bool(short) and long[-len(short) :] == short


class _Evaluator:
    """The small pure-string interpreter (see the module docstring)."""

    def __init__(self, tree: _Tree) -> None:
        self.tree = tree
        self.steps = 0

    def value(self, node: ast.expr | None, env: dict[str, Any], module: _Module, depth: int = 0,
              holes: bool = False) -> Any:
        self.steps += 1
        if node is None or depth > _MAX_DEPTH or self.steps > 20000:
            return UNKNOWN
        result = self._value(node, env, module, depth + 1, holes)
        if result is UNKNOWN and holes and not isinstance(node, (ast.List, ast.Tuple, ast.JoinedStr)):
            return _HOLE
        return result

    def _value(self, node: ast.expr, env: dict[str, Any], module: _Module, depth: int, holes: bool) -> Any:
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, (str, int, float, bool, type(None))) else UNKNOWN
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            return self.constant(module, node.id, depth)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id not in env:
            return self._attribute(node.value.id, node.attr, module, depth)
        if isinstance(node, ast.JoinedStr):
            pieces = []
            for part in node.values:
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    pieces.append(part.value)
                    continue
                if not isinstance(part, ast.FormattedValue) or part.format_spec is not None or part.conversion not in (-1, 115):
                    return UNKNOWN
                piece = self.value(part.value, env, module, depth, holes)
                if isinstance(piece, bool) or not isinstance(piece, (str, int)):
                    return UNKNOWN
                pieces.append(str(piece))
            return "".join(pieces)
        if isinstance(node, (ast.List, ast.Tuple)):
            items: list[Any] = []
            for element in node.elts:
                if isinstance(element, ast.Starred):
                    inner = self.value(element.value, env, module, depth)
                    if not isinstance(inner, tuple):
                        return UNKNOWN
                    items.extend(inner)
                    continue
                item = self.value(element, env, module, depth, holes)
                if item is UNKNOWN:
                    return UNKNOWN
                items.append(item)
            return tuple(items)
        if isinstance(node, ast.BinOp):
            left = self.value(node.left, env, module, depth)
            right = self.value(node.right, env, module, depth)
            if left is UNKNOWN or right is UNKNOWN:
                return UNKNOWN
            try:
                if isinstance(node.op, ast.Add) and type(left) is type(right) and isinstance(left, (str, tuple)):
                    return _bounded(left + right)
                if isinstance(node.op, ast.Mod) and isinstance(left, str):
                    return left % right
            except (TypeError, ValueError, KeyError):
                return UNKNOWN
            return UNKNOWN
        if isinstance(node, ast.Subscript):
            base = self.value(node.value, env, module, depth)
            if not isinstance(base, (str, tuple)) or (isinstance(base, str) and _HOLE in base):
                return UNKNOWN
            index = node.slice
            try:
                if isinstance(index, ast.Slice):
                    bounds = [self.value(b, env, module, depth) if b is not None else None
                              for b in (index.lower, index.upper, index.step)]
                    if any(b is not None and (isinstance(b, bool) or not isinstance(b, int)) for b in bounds):
                        return UNKNOWN
                    return base[slice(*bounds)]
                position = self.value(index, env, module, depth)
                if isinstance(position, bool) or not isinstance(position, int):
                    return UNKNOWN
                return base[position]
            except (IndexError, ValueError):
                return UNKNOWN
        if isinstance(node, ast.Compare):
            return self._compare(node, env, module, depth)
        if isinstance(node, ast.BoolOp):
            result: Any = UNKNOWN
            for operand in node.values:
                result = self.value(operand, env, module, depth)
                if result is UNKNOWN or _has_hole(result):
                    return UNKNOWN
                if (isinstance(node.op, ast.And) and not result) or (isinstance(node.op, ast.Or) and result):
                    return result
            return result
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            operand = self.value(node.operand, env, module, depth)
            return UNKNOWN if operand is UNKNOWN or _has_hole(operand) else not operand
        if isinstance(node, ast.IfExp):
            test = self.value(node.test, env, module, depth)
            if test is UNKNOWN or _has_hole(test):
                return UNKNOWN
            return self.value(node.body if test else node.orelse, env, module, depth, holes)
        if isinstance(node, (ast.GeneratorExp, ast.ListComp)):
            return self._comprehension(node, env, module, depth)
        if isinstance(node, ast.Call):
            return self._call(node, env, module, depth)
        return UNKNOWN

    def _compare(self, node: ast.Compare, env: dict[str, Any], module: _Module, depth: int) -> Any:
        left = self.value(node.left, env, module, depth)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.value(comparator, env, module, depth)
            if left is UNKNOWN or right is UNKNOWN or _has_hole(left) or _has_hole(right):
                return UNKNOWN
            try:
                if isinstance(op, ast.Eq):
                    ok = left == right
                elif isinstance(op, ast.NotEq):
                    ok = left != right
                elif isinstance(op, ast.In) and isinstance(right, (str, tuple)):
                    ok = left in right
                elif isinstance(op, ast.NotIn) and isinstance(right, (str, tuple)):
                    ok = left not in right
                elif isinstance(op, ast.Is) and (left is None or right is None):
                    ok = left is right
                elif isinstance(op, ast.IsNot) and (left is None or right is None):
                    ok = left is not right
                else:
                    return UNKNOWN
            except TypeError:
                return UNKNOWN
            if not ok:
                return False
            left = right
        return True

    def _comprehension(self, node: ast.GeneratorExp | ast.ListComp, env: dict[str, Any], module: _Module,
                       depth: int) -> Any:
        if len(node.generators) != 1 or node.generators[0].is_async:
            return UNKNOWN
        generator = node.generators[0]
        items = self.value(generator.iter, env, module, depth)
        if not isinstance(items, tuple) or not isinstance(generator.target, ast.Name):
            return UNKNOWN
        out = []
        for item in items:
            inner = {**env, generator.target.id: item}
            keep = True
            for condition in generator.ifs:
                test = self.value(condition, inner, module, depth)
                if test is UNKNOWN or _has_hole(test):
                    return UNKNOWN
                keep = keep and bool(test)
            if keep:
                element = self.value(node.elt, inner, module, depth)
                if element is UNKNOWN:
                    return UNKNOWN
                out.append(element)
        return tuple(out)

    def _call(self, node: ast.Call, env: dict[str, Any], module: _Module, depth: int) -> Any:
        if any(isinstance(arg, ast.Starred) for arg in node.args) or any(k.arg is None for k in node.keywords):
            return UNKNOWN
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _STR_METHODS:
            owner = self.value(func.value, env, module, depth)
            if isinstance(owner, str):
                args = [self.value(arg, env, module, depth) for arg in node.args]
                kwargs = {k.arg: self.value(k.value, env, module, depth) for k in node.keywords if k.arg}
                if any(a is UNKNOWN for a in (*args, *kwargs.values())):
                    return UNKNOWN
                if func.attr == "join":
                    if len(args) != 1 or not isinstance(args[0], tuple) or not all(isinstance(a, str) for a in args[0]):
                        return UNKNOWN
                    return _bounded(owner.join(args[0]))
                if func.attr in ("startswith", "endswith") and _HOLE in owner:
                    return UNKNOWN
                try:
                    result = getattr(owner, func.attr)(*args, **kwargs)
                except (TypeError, ValueError, KeyError, IndexError):
                    return UNKNOWN
                return tuple(result) if isinstance(result, list) else result
            return UNKNOWN
        if isinstance(func, ast.Name) and func.id == "isinstance" and len(node.args) == 2 and not node.keywords:
            subject = self.value(node.args[0], env, module, depth)
            kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            names = {kind.id for kind in kinds if isinstance(kind, ast.Name)}
            if subject is UNKNOWN or len(names) != len(kinds) or not names <= set(_TYPES):
                return UNKNOWN
            return any(isinstance(subject, _TYPES[name]) for name in names)
        if isinstance(func, ast.Name) and func.id not in env:
            args = [self.value(arg, env, module, depth) for arg in node.args]
            kwargs = {k.arg: self.value(k.value, env, module, depth) for k in node.keywords if k.arg}
            if any(a is UNKNOWN for a in (*args, *kwargs.values())):
                return UNKNOWN
            if func.id not in module.functions and func.id not in module.imports and func.id not in module.assigned:
                return _builtin(func.id, args, kwargs)
            definition = self.function(module, func.id)
            if definition is None:
                return UNKNOWN
            return self.run(definition[0], definition[1], args, kwargs, depth)
        return UNKNOWN

    def _attribute(self, owner: str, attr: str, module: _Module, depth: int) -> Any:
        """``mod.NAME`` (an imported module's constant) or ``Cls.NAME`` (a class attribute assigned once
        in the body of a class of this module or imported from another)."""
        if owner in module.classes and owner not in module.assigned:
            return self._class_constant(module.classes[owner], module, attr, depth)
        origin = module.imports.get(owner)
        if not origin:
            return UNKNOWN
        found = self.tree.find(origin)
        if found is not None:
            return self.constant(found, attr, depth)
        located = self.tree.lookup(origin)
        if located is not None and located[1] in located[0].classes:
            return self._class_constant(located[0].classes[located[1]], located[0], attr, depth)
        return UNKNOWN

    def _class_constant(self, node: ast.ClassDef, module: _Module, attr: str, depth: int) -> Any:
        values = [
            statement.value for statement in node.body
            if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == attr)
            or (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
                and statement.target.id == attr and statement.value is not None)
        ]
        return self.value(values[0], {}, module, depth) if len(values) == 1 and values[0] is not None else UNKNOWN

    def constant(self, module: _Module | None, name: str, depth: int) -> Any:
        """A module-level name bound once (here or, through an import, in the module it comes from)."""
        for _ in range(8):
            if module is None:
                return UNKNOWN
            values = module.assigned.get(name, [])
            if len(values) == 1 and values[0] is not None and name not in module.bound:
                return self.value(values[0], {}, module, depth)
            origin = module.imports.get(name)
            if origin is None or name in module.assigned:
                return UNKNOWN
            found = self.tree.lookup(origin)
            if found is None:
                return UNKNOWN
            module, name = found
        return UNKNOWN

    def function(self, module: _Module | None, name: str) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, _Module] | None:
        for _ in range(8):
            if module is None:
                return None
            if name in module.functions and name not in module.assigned:
                return module.functions[name], module
            origin = module.imports.get(name)
            found = self.tree.lookup(origin) if origin else None
            if found is None:
                return None
            module, name = found
        return None

    def run(self, function: ast.FunctionDef | ast.AsyncFunctionDef, module: _Module, args: list[Any],
            kwargs: dict[str, Any], depth: int) -> Any:
        """Interpret a pure function: assignments to names, ``if``, ``return`` (docstrings skipped)."""
        if function.decorator_list or depth > _MAX_DEPTH:
            return UNKNOWN
        params = [*function.args.posonlyargs, *function.args.args]
        if len(args) > len(params) or function.args.vararg or function.args.kwarg or function.args.kwonlyargs:
            return UNKNOWN
        env: dict[str, Any] = {}
        defaults = function.args.defaults
        for index, param in enumerate(params):
            if index < len(args):
                env[param.arg] = args[index]
            elif param.arg in kwargs:
                env[param.arg] = kwargs[param.arg]
            else:
                at = index - (len(params) - len(defaults))
                if at < 0:
                    return UNKNOWN
                env[param.arg] = self.value(defaults[at], {}, module, depth)
        result = self._block(function.body, env, module, depth)
        return result[1] if result is not None else UNKNOWN

    def _block(self, body: Sequence[ast.stmt], env: dict[str, Any], module: _Module, depth: int) -> tuple[bool, Any] | None:
        """(True, value) when the block returns, (False, None) when it falls through, None: unknown."""
        for statement in body:
            self.steps += 1
            if self.steps > 20000:
                return None
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue
            if isinstance(statement, ast.Pass):
                continue
            if isinstance(statement, ast.Return):
                return True, self.value(statement.value, env, module, depth) if statement.value else None
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
                env[statement.targets[0].id] = self.value(statement.value, env, module, depth)
                continue
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value:
                env[statement.target.id] = self.value(statement.value, env, module, depth)
                continue
            if isinstance(statement, ast.If):
                test = self.value(statement.test, env, module, depth)
                if test is UNKNOWN or _has_hole(test):
                    return None
                outcome = self._block(statement.body if test else statement.orelse, env, module, depth)
                if outcome is None or outcome[0]:
                    return outcome
                continue
            return None
        return False, None


def _has_hole(value: Any) -> bool:
    if isinstance(value, str):
        return _HOLE in value
    if isinstance(value, tuple):
        return any(_has_hole(item) for item in value)
    return False


def _bounded(value: Any) -> Any:
    return value if len(value) <= 4096 else UNKNOWN


def _builtin(name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
    if kwargs:
        return UNKNOWN
    if name in ("list", "tuple") and len(args) == 1 and isinstance(args[0], tuple):
        return args[0]  # holes inside the elements do not change how many there are
    if name in ("list", "tuple") and len(args) == 1 and isinstance(args[0], str) and not _has_hole(args[0]):
        return tuple(args[0])
    if name == "str" and len(args) == 1 and isinstance(args[0], (str, int)) and not isinstance(args[0], bool):
        return str(args[0])
    if name == "len" and len(args) == 1 and isinstance(args[0], (str, tuple)) and not _has_hole(args[0]):
        return len(args[0])
    return UNKNOWN


# -- which calls are calls of a helper --------------------------------------------------------
ClassId = tuple[tuple[str, ...], str]  # (module parts, class name)


class _Types:
    """Infers the class of a receiver expression (see the module docstring for the rules)."""

    def __init__(self, tree: _Tree) -> None:
        self.tree = tree
        self.attr_cache: dict[tuple[str, str, str], ClassId | None] = {}
        self.annotation_cache: dict[int, tuple[ast.AST, dict[str, list[ast.expr]]]] = {}

    def local_annotations(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, list[ast.expr]]:
        """``name: T = ...`` annotations inside ``function``, by name (computed once per function)."""
        cached = self.annotation_cache.get(id(function))
        if cached is None or cached[0] is not function:
            table: dict[str, list[ast.expr]] = {}
            for statement in ast.walk(function):
                if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                    table.setdefault(statement.target.id, []).append(statement.annotation)
            cached = self.annotation_cache[id(function)] = (function, table)
        return cached[1]

    def annotation(self, node: ast.expr | None, module: _Module, depth: int = 0) -> ClassId | None:
        if node is None or depth > 6:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                return self.annotation(ast.parse(node.value, mode="eval").body, module, depth + 1)
            except SyntaxError:
                return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            sides = [side for side in (node.left, node.right) if not (isinstance(side, ast.Constant) and side.value is None)]
            return self.annotation(sides[0], module, depth + 1) if len(sides) == 1 else None
        if isinstance(node, ast.Subscript) and isinstance(node.value, (ast.Name, ast.Attribute)):
            head = node.value.id if isinstance(node.value, ast.Name) else node.value.attr
            if head == "Optional":
                return self.annotation(node.slice, module, depth + 1)
            return None
        return self.class_named(node, module)

    def class_named(self, node: ast.expr, module: _Module) -> ClassId | None:
        """The class a name or dotted name refers to in ``module`` (defined there or imported)."""
        if isinstance(node, ast.Name):
            if node.id in module.classes:
                return module.parts, node.id
            origin = module.imports.get(node.id)
            if origin and len(origin) >= 2 and origin[-1][:1].isupper():
                return self._canonical(origin[:-1], origin[-1])
            return None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            origin = module.imports.get(node.value.id)
            if origin:
                return self._canonical(origin, node.attr)
        return None

    def _canonical(self, parts: tuple[str, ...], name: str) -> ClassId:
        """Follow re-exports (``from .config import Config`` in a package ``__init__``)."""
        for _ in range(6):
            module = self.tree.find(parts)
            if module is None or name in module.classes:
                break
            origin = module.imports.get(name)
            if not origin or len(origin) < 2:
                break
            parts, name = origin[:-1], origin[-1]
        return parts, name

    def class_node(self, identity: ClassId) -> tuple[ast.ClassDef, _Module] | None:
        module = self.tree.find(identity[0])
        if module is None or identity[1] not in module.classes:
            return None
        return module.classes[identity[1]], module

    def derives(self, identity: ClassId, target: ClassId, depth: int = 0) -> bool:
        if identity[1] == target[1] and _same_module(identity[0], target[0]):
            return True
        found = self.class_node(identity) if depth < 6 else None
        if found is None:
            return False
        node, module = found
        return any(
            (base_id := self.class_named(base, module)) is not None and self.derives(base_id, target, depth + 1)
            for base in node.bases
        )

    def of(self, node: ast.expr, module: _Module, function: ast.FunctionDef | ast.AsyncFunctionDef | None,
           cls: ast.ClassDef | None, depth: int = 0) -> ClassId | None:
        """The class of the value of ``node``, or None when it cannot be told."""
        if depth > 8:
            return None
        if isinstance(node, ast.Name):
            if node.id in ("self", "cls") and cls is not None and function is not None:
                return module.parts, cls.name
            if function is not None:
                for arg in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs):
                    if arg.arg == node.id:
                        return self.annotation(arg.annotation, module)
                assigned, bound = collect_bindings(function.body)
                annotated = self.local_annotations(function).get(node.id, [])
                if annotated:
                    return self._agree([self.annotation(a, module) for a in annotated])
                if node.id in bound:
                    return None
                values = assigned.get(node.id, [])
                if values:
                    return self._agree([self.of(v, module, function, cls, depth + 1) if v is not None else None for v in values])
            return None
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
            return self._agree([self.of(v, module, function, cls, depth + 1) for v in node.values])
        if isinstance(node, ast.IfExp):
            return self._agree([self.of(v, module, function, cls, depth + 1) for v in (node.body, node.orelse)])
        if isinstance(node, ast.Call):
            func = node.func
            direct = self.class_named(func, module) if isinstance(func, (ast.Name, ast.Attribute)) else None
            if direct is not None and self.class_node(direct) is not None:
                return direct  # C(...)
            if isinstance(func, ast.Attribute):  # C.create(): a method of C annotated to return C
                owner = self.class_named(func.value, module)
                found = self.class_node(owner) if owner is not None else None
                if owner is not None and found is not None:
                    method = next((n for n in found[0].body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                                   and n.name == func.attr), None)
                    if method is not None:
                        returned = method.returns
                        if isinstance(returned, ast.Name) and returned.id == "Self":
                            return owner
                        return self.annotation(returned, found[1])
            return None
        if isinstance(node, ast.Attribute):
            base = self.of(node.value, module, function, cls, depth + 1)
            return self.attribute(base, node.attr, depth + 1) if base is not None else None
        return None

    def attribute(self, owner: ClassId, attr: str, depth: int = 0) -> ClassId | None:
        """The declared class of ``owner().attr``, through the class's bases."""
        key = (".".join(owner[0]), owner[1], attr)
        if key in self.attr_cache:
            return self.attr_cache[key]
        self.attr_cache[key] = None  # a cycle gives no type
        found = self.class_node(owner)
        result: ClassId | None = None
        if found is not None and depth < 10:
            node, module = found
            result = self._own_attribute(node, module, attr, depth)
            if result is None and not self._binds(node, attr):
                for base in node.bases:
                    base_id = self.class_named(base, module)
                    if base_id is not None:
                        result = self.attribute(base_id, attr, depth + 1)
                        if result is not None:
                            break
        self.attr_cache[key] = result
        return result

    def _binds(self, node: ast.ClassDef, attr: str) -> bool:
        for child in ast.walk(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and child.name == attr:
                return True
            if isinstance(child, ast.Attribute) and child.attr == attr and isinstance(child.ctx, ast.Store):
                return True
            if isinstance(child, (ast.AnnAssign, ast.Assign)):
                targets = [child.target] if isinstance(child, ast.AnnAssign) else child.targets
                if any(isinstance(t, ast.Name) and t.id == attr for t in targets):
                    return True
        return False

    def _own_attribute(self, node: ast.ClassDef, module: _Module, attr: str, depth: int) -> ClassId | None:
        annotated: list[ast.expr] = []
        assigned: list[tuple[ast.expr, ast.FunctionDef | ast.AsyncFunctionDef]] = []
        for statement in node.body:
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.target.id == attr:
                annotated.append(statement.annotation)
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if statement.name == attr:
                    if statement.returns is None:
                        return None
                    annotated.append(statement.returns)
                    continue
                for child in ast.walk(statement):
                    if (isinstance(child, ast.AnnAssign) and isinstance(child.target, ast.Attribute)
                            and child.target.attr == attr and isinstance(child.target.value, ast.Name)
                            and child.target.value.id == "self"):
                        annotated.append(child.annotation)
                    elif isinstance(child, ast.Assign):
                        for target in child.targets:
                            if (isinstance(target, ast.Attribute) and target.attr == attr
                                    and isinstance(target.value, ast.Name) and target.value.id == "self"):
                                assigned.append((child.value, statement))
        if annotated:
            return self._agree([self.annotation(a, module) for a in annotated])
        if assigned:
            return self._agree([self.of(value, module, function, node, depth + 1) for value, function in assigned])
        return None

    @staticmethod
    def _agree(found: Sequence[ClassId | None]) -> ClassId | None:
        if not found or any(item is None for item in found):
            return None
        first = found[0]
        assert first is not None
        return first if all(item is not None and item[1] == first[1] and _same_module(item[0], first[0]) for item in found) else None


def _calls(
    tree: ast.Module, lines: Sequence[int]
) -> Iterator[tuple[ast.Call, ast.FunctionDef | ast.AsyncFunctionDef | None, ast.ClassDef | None]]:
    """The calls in the statements that span one of ``lines`` (sorted), each with its innermost
    enclosing function and that function's class (when it is a method)."""
    stack: list[tuple[ast.AST, ast.FunctionDef | ast.AsyncFunctionDef | None, ast.ClassDef | None, ast.ClassDef | None]] = [
        (tree, None, None, None)
    ]
    while stack:
        node, function, cls, direct_class = stack.pop()
        if isinstance(node, ast.stmt):
            start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
            at = bisect.bisect_left(lines, start)
            if at >= len(lines) or lines[at] > (node.end_lineno or node.lineno):
                continue  # no candidate call in this statement
        if isinstance(node, ast.ClassDef):
            stack.extend((child, function, cls, node) for child in ast.iter_child_nodes(node))
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function, cls = node, direct_class
            stack.extend((child, function, cls, None) for child in ast.iter_child_nodes(node))
            continue
        if isinstance(node, ast.Call):
            yield node, function, cls
        stack.extend((child, function, cls, direct_class) for child in ast.iter_child_nodes(node))


def helper_reads(scans: Sequence[FileScan], files: Sequence[tuple[Path, str]]) -> tuple[list[EnvRead], list[str]]:
    """Reads at the call sites, in any scanned Python file, of the helpers the scans found; and
    notes (one per helper whose calls could not all be told apart: method calls whose receiver's
    class is unknown are counted, never read)."""
    helpers = [helper for scan in scans for helper in scan.py_helpers]
    if not helpers:
        return [], []
    try:
        return _helper_reads(helpers, files)
    finally:
        _BINDINGS.clear()
        _WALKS.clear()


def _helper_reads(helpers: list[PyHelper], files: Sequence[tuple[Path, str]]) -> tuple[list[EnvRead], list[str]]:
    tree = _Tree(files)
    evaluator = _Evaluator(tree)
    types = _Types(tree)
    by_name: dict[str, list[PyHelper]] = {}
    for helper in helpers:
        by_name.setdefault(helper.name, []).append(helper)
    texts = {shown: tree.text(shown) or "" for shown in tree.paths}
    helper_modules = {helper.file: tree.module(helper.file) for helper in helpers}
    reads: list[EnvRead] = []
    unresolved: dict[str, list[str]] = {}
    candidates = _candidate_pattern(helpers)
    functions = {helper.name for helper in helpers if not helper.cls}
    # A receiver's class can only be inferred from a name this file imports from the helper's package
    # (or a relative import inside it): other files cannot hold a call of a method helper.
    packages = {part for helper in helpers if helper.cls for part in helper.module[:-1] if part not in ("src", "lib")}
    reaches = re.compile(
        r"^[ \t]*(?:from|import)[ \t]+(?:" + "|".join(map(re.escape, sorted(packages))) + r")\b", re.MULTILINE
    ) if packages else None
    relative = re.compile(r"^[ \t]*from[ \t]+\.", re.MULTILINE)
    homes = tuple(_package_dir(helper.file, tree.paths) for helper in helpers if helper.cls)
    for shown, text in texts.items():
        if not any(f"{name}(" in text for name in by_name):
            continue
        if not any(f"{name}(" in text for name in functions) and shown not in helper_modules and not (
            (reaches is not None and reaches.search(text)) or (shown.startswith(homes) and relative.search(text))
        ):
            continue
        lines = _candidate_lines(candidates, text)
        module = tree.module(shown) if lines else None
        if module is None:
            continue
        for call, function, cls in _calls(module.tree, lines):
            func = call.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name not in by_name:
                continue
            for helper in by_name[name]:
                home = helper_modules.get(helper.file)
                if home is None:
                    continue
                found = _reads_at(helper, home, call, module, function, cls, evaluator, shown)
                if not found:  # no name with this argument, whoever the callee: skip the type inference
                    continue
                verdict = _is_call_of(helper, call, module, function, cls, types)
                if verdict is False:
                    continue
                if verdict is None:  # it would name a variable, if the receiver were the helper's class
                    unresolved.setdefault(f"{helper.cls}.{helper.name}", []).append(f"{shown}:{call.lineno}")
                else:
                    reads.extend(found)
    notes = [
        f"helper {label}() (builds its env name from its argument): {len(where)} call(s) with a static argument of "
        f"a method named {label.rpartition('.')[2]} on an object whose class envdoc could not infer were not read "
        f"(first: {where[0]}); "
        f"a parameter or attribute annotated {label.partition('.')[0]} is followed (docs/envdoc.md, Helpers)"
        for label, where in sorted(unresolved.items())
    ]
    return reads, notes


def _package_dir(relpath: str, scanned: dict[str, Path]) -> str:
    """The folder of the top package holding ``relpath`` (walking up while the parent folder has an
    scanned ``__init__.py``), with a trailing ``/``: files below it may import the helper's class
    relatively. A module outside any package gives its own folder."""
    folder = relpath.rpartition("/")[0]
    while folder:
        parent = folder.rpartition("/")[0]
        if f"{parent}/__init__.py" not in scanned if parent else "__init__.py" not in scanned:
            break
        folder = parent
    return f"{folder}/" if folder else ""


def _candidate_pattern(helpers: Sequence[PyHelper]) -> re.Pattern[str]:
    """Where a call that could give a name starts: ``f(`` for a function helper; for a method,
    ``.m(`` followed by an argument that may be static (a string, list or tuple literal, an
    f-string, a ``CONSTANT`` or ``Cls.CONSTANT``, a keyword argument). Only statements holding such a
    text are parsed and walked: the type inference behind ``x.m(...)`` is the costly part, and
    ``.get(`` is everywhere. A method called with a lower-case variable (``.m(name)``) is kept only
    where the file binds that name to a string literal or loops over it (see ``_candidate_lines``)."""
    functions = sorted({re.escape(h.name) for h in helpers if not h.cls})
    methods = sorted({re.escape(h.name) for h in helpers if h.cls})
    parts = []
    if functions:
        parts.append(r"\b(?:" + "|".join(functions) + r")\(")
    if methods:
        parts.append(
            r"\.(?:" + "|".join(methods) + r")\(\s*(?:[\"'\[(]|[rbfuRBFU]{1,2}[\"']|[A-Z_][A-Za-z0-9_]*(?:\.[A-Z_]\w*)?\s*[,)]"
            r"|[A-Za-z_]\w*\.[A-Z_][A-Z0-9_]*\b|\w+\s*=[^=]|(?P<local>[a-z_]\w*)\s*[,)])"
        )
    return re.compile("|".join(parts))


def _candidate_lines(pattern: re.Pattern[str], text: str) -> list[int]:
    """Lines of the pattern's matches; ``.m(name)`` with a lower-case variable only when the text
    binds that name to a string literal (``name = "X_FOO"``) or loops it (``for name in``)."""
    lines: list[int] = []
    line, last = 1, 0
    bindings: dict[str, bool] = {}
    for match in pattern.finditer(text):
        local = match.groupdict().get("local")
        if local:
            if local not in bindings:
                bindings[local] = re.search(
                    r"\b" + re.escape(local) + r"\s*(?::[^=\n]*)?=\s*[rbuRBU]?[\"']|\bfor\s+" + re.escape(local) + r"\s+in\b",
                    text,
                ) is not None
            if not bindings[local]:
                continue
        line += text.count("\n", last, match.start())
        last = match.start()
        if not lines or lines[-1] != line:
            lines.append(line)
    return lines


def _is_call_of(helper: PyHelper, call: ast.Call, module: _Module, function: ast.FunctionDef | ast.AsyncFunctionDef | None,
                cls: ast.ClassDef | None, types: _Types) -> bool | None:
    """True: a call of the helper; False: not; None: a method call whose receiver's class is unknown."""
    func = call.func
    target: ClassId = (helper.module, helper.cls)
    if not helper.cls:
        if isinstance(func, ast.Name):
            if function is not None and _shadowed(function, func.id):
                return False
            if func.id in module.functions:
                return _same_module(module.parts, helper.module)
            origin = module.imports.get(func.id)
            return origin is not None and origin[-1] == helper.name and _same_module(origin[:-1], helper.module)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            origin = module.imports.get(func.value.id)
            return origin is not None and _same_module(origin, helper.module)
        return False
    if not isinstance(func, ast.Attribute):
        return False
    receiver = types.of(func.value, module, function, cls)
    if receiver is not None:
        return types.derives(receiver, target)
    if isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
        return False  # a method of another class, or of a nested class
    return None


def _shadowed(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Is ``name`` bound inside ``function`` other than by an import (a parameter, an assignment, a
    nested ``def``)? Then a call of it is not a call of the module-level helper."""
    assigned, bound = collect_bindings(function.body)
    params = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
    imported = {
        alias.asname or alias.name.split(".")[0]
        for node in ast.walk(function) if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names
    }
    return name in params or name in assigned or (name in bound and name not in imported)


def _reads_at(helper: PyHelper, home: _Module, call: ast.Call, module: _Module,
              function: ast.FunctionDef | ast.AsyncFunctionDef | None, cls: ast.ClassDef | None,
              evaluator: _Evaluator, shown: str) -> list[EnvRead]:
    """The reads one call of the helper makes: its argument's name, one per item when the argument
    is the variable of an enclosing ``for`` over literal items (or a dict literal's keys), and the
    names of the sub-tables a self-recursive helper walks into (see ``_Walk``)."""
    argument = call_argument(call, helper.position, helper.param)
    if argument is None:
        return []
    local: dict[str, Any] = {}
    if function is not None:  # the caller's own single-assigned literals (`key = "x.y"; config.get(key)`)
        assigned, bound = collect_bindings(function.body)
        params = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
        for name, values in assigned.items():
            if name not in bound and name not in params and len(values) == 1 and values[0] is not None \
                    and not isinstance(values[0], ast.Lambda):
                try:
                    value = evaluator.value(values[0], {}, module)
                except RecursionError:
                    value = UNKNOWN
                if value is not UNKNOWN:
                    local[name] = value
        unknown = params | bound | {n for n, v in assigned.items() if n not in local}
    else:
        unknown = set()
    pending: list[Any] = []
    value = _argument_value(argument, local, unknown, module, evaluator)
    if value is not UNKNOWN:
        pending.append(value)
    else:
        for bindings in _loop_bindings(call, argument, module, function, cls, evaluator):
            value = _argument_value(argument, {**local, **bindings}, unknown - set(bindings), module, evaluator)
            if value is not UNKNOWN:
                pending.append(value)
    walk = _walk_of(helper, home, evaluator)
    reads: list[EnvRead] = []
    seen: set[Any] = set()
    while pending and len(seen) < 512:
        value = pending.pop(0)
        if value in seen:
            continue
        seen.add(value)
        read = _read_for(helper, home, value, call, evaluator, shown)
        if read is not None:
            reads.append(read)
        if walk is not None:
            pending.extend(walk.children(value, evaluator))
    return reads


def _read_for(helper: PyHelper, home: _Module, value: Any, call: ast.Call, evaluator: _Evaluator,
              shown: str) -> EnvRead | None:
    env = {helper.param: value}
    try:
        for text, polarity in helper.guards:
            test = evaluator.value(ast.parse(text, mode="eval").body, env, home)
            if test is not UNKNOWN and not _has_hole(test) and bool(test) != polarity:
                return None  # this argument takes the other branch: the read is not reached
        built = evaluator.value(ast.parse(helper.expression, mode="eval").body, env, home)
    except (SyntaxError, RecursionError):
        return None
    if not isinstance(built, str):
        return None
    where = f"{helper.cls + '.' if helper.cls else ''}{helper.name}"
    form = f"{helper.form} in {where}() ({helper.file}:{helper.line})"
    if _HOLE in built:
        prefix, suffix = built.split(_HOLE, 1)[0], built.rsplit(_HOLE, 1)[1]
        if not _ENV_NAME.fullmatch(prefix) or (suffix and not re.fullmatch(r"[A-Za-z0-9_]+", suffix)):
            return None
        return make_read(Expr(static=None, prefix=prefix, suffix=suffix), helper.default, shown, call.lineno, form)
    if not _ENV_NAME.fullmatch(built):
        return None
    return make_read(Expr(static=built, prefix=built), helper.default, shown, call.lineno, form)


def _argument_value(argument: ast.expr, local: dict[str, Any], unknown: set[str], module: _Module,
                    evaluator: _Evaluator) -> Any:
    """The argument's value: static, or a list / f-string with some literal parts and holes for the
    rest. A wholly unknown argument (a variable, a call) is UNKNOWN: it names nothing."""
    hidden = {name: UNKNOWN for name in unknown}
    try:
        if isinstance(argument, (ast.List, ast.Tuple, ast.JoinedStr)):
            value = evaluator.value(argument, {**hidden, **local}, module, holes=True)
        else:
            value = evaluator.value(argument, {**hidden, **local}, module)
    except RecursionError:
        return UNKNOWN
    if value is UNKNOWN or value == _HOLE:
        return UNKNOWN
    if isinstance(value, tuple) and (not value or all(item == _HOLE for item in value)):
        return UNKNOWN
    if isinstance(value, (bool, int, float)) or value is None:
        return UNKNOWN
    return value


# --- names from the keys of dict literals and from loops over literal items (issue 24) -------------

_COPIES = {"deepcopy", "copy", "dict"}


def _dict_literal(node: ast.expr | None, module: _Module, cls: ast.ClassDef | None,
                  function: ast.FunctionDef | ast.AsyncFunctionDef | None, depth: int = 0) -> ast.Dict | None:
    """The dict literal that ``node`` is, bound to or copied from: ``{...}``; a module constant or a
    class attribute (``D``, ``Cls.D``, ``self.D``) assigned once; ``deepcopy(x)``/``copy(x)``/
    ``dict(x)``/``x.copy()``; ``self.attr`` assigned once in the class's methods (``self._data =
    deepcopy(self.DEFAULTS)``) or a ``@property`` returning such; a local assigned once; a parameter of
    a nested function that its enclosing method calls once (recursive calls of itself aside) with such
    an argument. Anything else is None: an instance's data is never guessed."""
    if node is None or depth > 8:
        return None
    if isinstance(node, ast.Dict):
        return node if all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys) else None
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "copy" and not node.args:
            return _dict_literal(func.value, module, cls, function, depth + 1)
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name in _COPIES and len(node.args) == 1 and not node.keywords:
            return _dict_literal(node.args[0], module, cls, function, depth + 1)
        return None
    if isinstance(node, ast.Name):
        if function is not None:
            assigned, bound = collect_bindings(function.body)
            values = assigned.get(node.id, [])
            if len(values) == 1 and node.id not in bound:
                return _dict_literal(values[0], module, cls, function, depth + 1)
            params = [*function.args.posonlyargs, *function.args.args]
            names = [p.arg for p in params]
            if node.id in names and node.id not in assigned:
                outer = _enclosing(function, module, cls)
                if outer is None:
                    return None
                calls = [c for c in ast.walk(outer) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                         and c.func.id == function.name and not _inside(c, function)]
                if len(calls) != 1:
                    return None
                argument = call_argument(calls[0], names.index(node.id), node.id)
                return _dict_literal(argument, module, cls, outer, depth + 1)
            if node.id in assigned or node.id in bound:
                return None
        values = module.assigned.get(node.id, [])
        if len(values) == 1 and node.id not in module.bound:
            return _dict_literal(values[0], module, None, None, depth + 1)
        return None
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        owner = node.value.id
        if owner in ("self", "cls") and cls is not None:
            return _class_attribute_dict(cls, node.attr, module, depth)
        if owner in module.classes:
            return _class_attribute_dict(module.classes[owner], node.attr, module, depth)
    return None


def _class_attribute_dict(cls: ast.ClassDef, attr: str, module: _Module, depth: int) -> ast.Dict | None:
    own = [
        statement.value for statement in cls.body
        if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == attr)
        or (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
            and statement.target.id == attr and statement.value is not None)
    ]
    methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    stores = [
        (method, target, node.value) for method in methods for node in ast.walk(method)
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
        and target.value.id == "self" and target.attr == attr
    ]
    properties = [m for m in methods if m.name == attr and any(
        isinstance(d, ast.Name) and d.id == "property" for d in m.decorator_list)]
    if len(own) + len(stores) + len(properties) != 1:
        return None
    if own:
        return _dict_literal(own[0], module, cls, None, depth + 1)
    if stores:
        method, _, value = stores[0]
        return _dict_literal(value, module, cls, method, depth + 1) if value is not None else None
    returns = [n for n in ast.walk(properties[0]) if isinstance(n, ast.Return)]
    return _dict_literal(returns[0].value, module, cls, properties[0], depth + 1) if len(returns) == 1 else None


def _inside(node: ast.AST, scope: ast.AST) -> bool:
    return any(child is node for child in ast.walk(scope))


def _enclosing(function: ast.FunctionDef | ast.AsyncFunctionDef, module: _Module,
               cls: ast.ClassDef | None) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function whose body defines ``function`` (a nested ``def``), if any."""
    scopes = cls.body if cls is not None else module.tree.body
    for top in scopes:
        if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)) and top is not function:
            for node in ast.walk(top):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and function in node.body:
                    return node
    return None


def _items(node: ast.expr, module: _Module, cls: ast.ClassDef | None,
           function: ast.FunctionDef | ast.AsyncFunctionDef | None, evaluator: _Evaluator) -> tuple[str, ...] | None:
    """The string items a ``for`` iterates: a literal tuple/list/set of strings (or a constant holding
    one), a dict literal's keys (``D``, ``D.keys()``, ``self.D``...)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "keys" and not node.args:
        node = node.func.value
    table = _dict_literal(node, module, cls, function)
    if table is not None:
        return tuple(str(k.value) for k in table.keys if isinstance(k, ast.Constant))
    if isinstance(node, ast.Set):
        node = ast.Tuple(elts=node.elts, ctx=ast.Load())
    if isinstance(node, (ast.Tuple, ast.List, ast.Name, ast.Attribute)):
        try:
            value = evaluator.value(node, {}, module)
        except RecursionError:
            return None
        if isinstance(value, tuple) and value and all(isinstance(v, str) and _HOLE not in v for v in value):
            return value
    return None


def _loop_bindings(call: ast.Call, argument: ast.expr, module: _Module,
                   function: ast.FunctionDef | ast.AsyncFunctionDef | None, cls: ast.ClassDef | None,
                   evaluator: _Evaluator) -> list[dict[str, Any]]:
    """One binding per item of the innermost ``for NAME in ITEMS`` around ``call`` whose variable the
    argument uses, ITEMS known (``_items``); with the enclosing nested function's other parameters
    taken from its one call (or their defaults) when the loop is in such a function."""
    used = {n.id for n in ast.walk(argument) if isinstance(n, ast.Name)}
    body = function.body if function is not None else module.tree.body
    loops = [n for statement in body for n in ast.walk(statement)
             if isinstance(n, ast.For) and isinstance(n.target, ast.Name) and n.target.id in used
             and any(child is call for stmt in n.body for child in ast.walk(stmt))]
    if not loops:
        return []
    loop = loops[-1]
    assert isinstance(loop.target, ast.Name)
    items = _items(loop.iter, module, cls, function, evaluator)
    if not items:
        return []
    fixed = _nested_params(function, module, cls, evaluator, used - {loop.target.id}) if function is not None else {}
    return [{**fixed, loop.target.id: item} for item in items]


def _nested_params(function: ast.FunctionDef | ast.AsyncFunctionDef, module: _Module, cls: ast.ClassDef | None,
                   evaluator: _Evaluator, names: set[str]) -> dict[str, Any]:
    """Values of ``names`` among the parameters of a nested function, at its one outer call."""
    params = [*function.args.posonlyargs, *function.args.args]
    wanted = [p.arg for p in params if p.arg in names]
    if not wanted:
        return {}
    outer = _enclosing(function, module, cls)
    if outer is None:
        return {}
    calls = [c for c in ast.walk(outer) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
             and c.func.id == function.name and not _inside(c, function)]
    if len(calls) != 1:
        return {}
    out: dict[str, Any] = {}
    defaults = function.args.defaults
    for index, param in enumerate(params):
        if param.arg not in wanted:
            continue
        given = call_argument(calls[0], index, param.arg)
        at = index - (len(params) - len(defaults))
        expr = given if given is not None else defaults[at] if at >= 0 else None
        value = evaluator.value(expr, {}, module) if expr is not None else UNKNOWN
        if isinstance(value, str) and _HOLE not in value:
            out[param.arg] = value
    return out


class _Walk:
    """A helper that, when its argument names a table, calls itself for each key of it:
    ``node = self._data; for part in PATH: node = node[part]`` then ``{k: self.m(ARG) for k in node}``
    (or a ``for k in node:`` loop), ``self._data`` a copy of a dict literal. ``children(value)``: the
    arguments of those recursive calls, walking the dict literal down PATH (evaluated with the
    helper's single-assigned locals for that value); nothing when PATH does not end on a nested dict."""

    def __init__(self, helper: PyHelper, home: _Module, function: ast.FunctionDef | ast.AsyncFunctionDef,
                 table: ast.Dict, path: ast.expr, key: str, argument: ast.expr) -> None:
        self.helper, self.home, self.function = helper, home, function
        self.table, self.path, self.key, self.argument = table, path, key, argument

    def children(self, value: Any, evaluator: _Evaluator) -> list[Any]:
        env: dict[str, Any] = {self.helper.param: value}
        assigned, bound = collect_bindings(self.function.body)
        for statement in self.function.body:  # the helper's top-level single-assigned locals, in order
            if not isinstance(statement, (ast.Assign, ast.AnnAssign)):
                continue
            target = statement.targets[0] if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                else statement.target if isinstance(statement, ast.AnnAssign) else None
            if isinstance(target, ast.Name) and statement.value is not None and len(assigned.get(target.id, [])) == 1 \
                    and target.id not in bound and target.id != self.helper.param:
                env[target.id] = evaluator.value(statement.value, env, self.home)
        try:
            path = evaluator.value(self.path, env, self.home)
        except RecursionError:
            return []
        if not isinstance(path, tuple) or not all(isinstance(p, str) and _HOLE not in p for p in path):
            return []
        node: ast.expr = self.table
        for part in path:
            if not isinstance(node, ast.Dict):
                return []
            found = [v for k, v in zip(node.keys, node.values, strict=True) if isinstance(k, ast.Constant) and k.value == part]
            if len(found) != 1:
                return []
            node = found[0]
        if not isinstance(node, ast.Dict) or not node.keys:
            return []
        out = []
        for k in node.keys:
            if not isinstance(k, ast.Constant) or not isinstance(k.value, str):
                return []
            child = evaluator.value(self.argument, {**env, self.key: k.value}, self.home)
            if child is UNKNOWN or _has_hole(child):
                return []
            out.append(child)
        return out


_WALKS: dict[tuple[str, str, str, int], _Walk | None] = {}


def _walk_of(helper: PyHelper, home: _Module, evaluator: _Evaluator) -> _Walk | None:
    """The helper's table walk (``_Walk``), if its body has exactly that shape."""
    key = (helper.file, helper.cls, helper.name, helper.line)
    if key not in _WALKS:
        _WALKS[key] = _find_walk(helper, home)
    return _WALKS[key]


def _find_walk(helper: PyHelper, home: _Module) -> _Walk | None:
    cls = home.classes.get(helper.cls) if helper.cls else None
    scope = cls.body if cls is not None else home.tree.body
    defs = [n for n in scope if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == helper.name]
    if len(defs) != 1:
        return None
    function = defs[0]
    recursions: list[tuple[str, str, ast.expr]] = []  # (walked variable, key variable, argument)
    for node in ast.walk(function):
        loops: list[tuple[ast.expr, ast.expr, list[ast.AST]]] = []
        if isinstance(node, (ast.DictComp, ast.ListComp, ast.SetComp, ast.GeneratorExp)) and len(node.generators) == 1:
            inner: list[ast.AST] = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            loops.append((node.generators[0].target, node.generators[0].iter, inner))
        elif isinstance(node, ast.For):
            loops.append((node.target, node.iter, [*node.body]))
        for target, iterated, body in loops:
            if not isinstance(target, ast.Name) or not isinstance(iterated, ast.Name):
                continue
            for part in body:
                for call in ast.walk(part):
                    if not isinstance(call, ast.Call):
                        continue
                    func = call.func
                    own = (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                           and func.value.id in ("self", "cls") and func.attr == helper.name and bool(helper.cls)) or (
                        isinstance(func, ast.Name) and func.id == helper.name and not helper.cls)
                    argument = call_argument(call, helper.position, helper.param) if own else None
                    if argument is not None and any(isinstance(n, ast.Name) and n.id == target.id for n in ast.walk(argument)):
                        recursions.append((iterated.id, target.id, argument))
    if len(recursions) != 1:
        return None
    walked, key, argument = recursions[0]
    descents = [
        n for n in ast.walk(function) if isinstance(n, ast.For) and isinstance(n.target, ast.Name)
        and any(isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                and s.targets[0].id == walked and isinstance(s.value, ast.Subscript)
                and isinstance(s.value.value, ast.Name) and s.value.value.id == walked
                and isinstance(s.value.slice, ast.Name) and s.value.slice.id == n.target.id
                for s in n.body)
    ]
    starts = [
        s.value for s in function.body
        if isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value is not None
        and any(isinstance(t, ast.Name) and t.id == walked for t in (s.targets if isinstance(s, ast.Assign) else [s.target]))
    ]
    if len(descents) != 1 or len(starts) != 1:
        return None
    table = _dict_literal(starts[0], home, cls, function)
    if table is None:
        return None
    return _Walk(helper, home, function, table, descents[0].iter, key, argument)
