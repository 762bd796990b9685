"""Find environment-variable reads in Go and Rust source with tree-sitter (the optional extra
``vtgate[envdoc-langs]``: the ``tree-sitter``, ``tree-sitter-go`` and ``tree-sitter-rust`` wheels).

Go: ``os.Getenv(X)``, ``os.LookupEnv(X)``, ``syscall.Getenv(X)`` and calls of configured wrappers
(``envconfig.Var(X)``, ``Var(X)`` inside the package). Rust: ``std::env::var(X)``, ``env::var_os(X)``,
``env!("X")`` / ``option_env!("X")`` (compile time), clap's ``#[clap(long, env)]`` / ``#[arg(env)]``
on a struct field (the field name in SCREAMING_SNAKE_CASE) and ``env = "X"``, and configured wrappers.

A name argument is resolved when it is a string literal, a constant or variable bound only to
literals in the enclosing function or at file level (``const x = "X"``, ``let varname = "X"``, a
``switch`` that assigns one of several literals), the variable of a ``range`` / ``for`` over a
literal list (nested lists flattened; also a file-level ``var`` holding one), or a call of a function
of the same file whose every ``return`` is a literal. An identifier that stays unknown is kept as
``ref`` so that a constant of another file of the same Go package can resolve it. Without the extra
these files are not scanned and the report says so (``not_scanned``)."""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from vtgate.envdoc.model import EnvRead, Expr, FileScan, ParamHelper, WrapperSpec
from vtgate.envdoc.pyscan import make_reads

GO_SUFFIXES = (".go",)
RUST_SUFFIXES = (".rs",)


def _import_extra() -> tuple[Any, Any, Any] | None:
    """The tree-sitter modules, or None when the optional extra is not installed."""
    try:
        return (
            importlib.import_module("tree_sitter"),
            importlib.import_module("tree_sitter_go"),
            importlib.import_module("tree_sitter_rust"),
        )
    except ImportError:
        return None


_EXTRA = _import_extra()

_LANGUAGES: dict[str, Any] = {}
_PARSERS: dict[str, Any] = {}
_UNKNOWN = Expr(static=None, prefix="")
_MAX_CHOICES = 64


def available() -> bool:
    """True when the tree-sitter extra is installed (Go and Rust files can be parsed)."""
    return _EXTRA is not None


def _parser(lang: str) -> Any:
    parser = _PARSERS.get(lang)
    if parser is None:
        assert _EXTRA is not None, "tree-sitter is not installed: callers check available() first"
        core, go, rust = _EXTRA
        module = go if lang == "go" else rust
        _LANGUAGES[lang] = core.Language(module.language())
        parser = _PARSERS[lang] = core.Parser(_LANGUAGES[lang])
    return parser


def _text(node: Any) -> str:
    return bytes(node.text).decode("utf-8", "replace")


def _line(node: Any) -> int:
    return int(node.start_point[0]) + 1


def _walk(node: Any, types: set[str] | frozenset[str]) -> Iterator[Any]:
    """Nodes of the given types below ``node`` (depth first, document order)."""
    cursor = node.walk()
    visited_children = False
    while True:
        if not visited_children:
            if cursor.node.type in types:
                yield cursor.node
            if cursor.goto_first_child():
                continue
        if cursor.goto_next_sibling():
            visited_children = False
        elif cursor.goto_parent():
            visited_children = True
        else:
            return


_GO_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"'}


def _string_value(node: Any) -> str | None:
    """The value of a Go or Rust string literal node, else None."""
    kind = node.type
    if kind in ("interpreted_string_literal", "string_literal"):
        raw = _text(node)
        body = raw[1:-1] if raw.endswith('"') and len(raw) >= 2 else raw[1:]
        return re.sub(r"\\(.)", lambda m: _GO_ESCAPES.get(m.group(1), m.group(1)), body)
    if kind == "raw_string_literal":
        raw = _text(node)
        if raw.startswith("`"):
            return raw[1:-1]
        match = re.match(r'r(#*)"(.*)"\1$', raw, re.S)
        return match.group(2) if match else None
    return None


def _flatten_strings(node: Any) -> tuple[str, ...] | None:
    """Every string of a (nested) composite literal of literals, or of a Rust array/vec!; None when
    an element is not a literal (the list may hold anything)."""
    values: list[str] = []
    ok = True

    def visit(current: Any) -> None:
        nonlocal ok
        for child in current.named_children:
            value = _string_value(child)
            if value is not None:
                values.append(value)
            elif child.type in ("literal_value", "literal_element", "array_expression", "token_tree"):
                visit(child)
            elif child.type in ("comment", "line_comment", "block_comment"):
                continue
            else:
                ok = False

    body = node.child_by_field_name("body") if node.type == "composite_literal" else node
    if body is None:
        return None
    visit(body)
    return tuple(dict.fromkeys(values)) if ok and values else None


class _Resolver:
    """Names bound to literals, per function and at file level (computed lazily, cached)."""

    def __init__(self, lang: str, root: Any) -> None:
        self.lang = lang
        self.root = root
        self.scopes: dict[int, dict[str, tuple[str, ...] | None]] = {}
        self.functions: dict[str, tuple[str, ...] | None] | None = None

    # -- bindings -----------------------------------------------------------------------------
    def _scope_of(self, node: Any) -> Any:
        current = node.parent
        while current is not None:
            if current.type in _FUNCTIONS:
                return current
            current = current.parent
        return self.root

    def _bindings(self, scope: Any) -> dict[str, tuple[str, ...] | None]:
        cached = self.scopes.get(scope.id)
        if cached is not None:
            return cached
        found: dict[str, tuple[str, ...] | None] = {}
        self.scopes[scope.id] = found  # in progress: a lookup from inside sees what is bound so far

        def bind(name: str, values: tuple[str, ...] | None) -> None:
            if name in found and found[name] is None:
                return
            if values is None:
                found[name] = None
                return
            merged = tuple(dict.fromkeys((*(found.get(name) or ()), *values)))
            found[name] = merged if len(merged) <= _MAX_CHOICES else None

        at_file_level = scope.id == self.root.id
        types = _GO_BINDINGS if self.lang == "go" else _RUST_BINDINGS
        for node in _walk(scope, types):
            if at_file_level and self._scope_of(node).id != self.root.id:
                continue
            if not at_file_level and self._scope_of(node).id != scope.id:
                continue
            for name, value in self._binding_pairs(node):
                bind(name, self._value_of(value, scope) if value is not None else None)
        if not at_file_level:
            for parameter in self._parameters(scope):
                found[parameter] = None
        self.scopes[scope.id] = found
        return found

    def _parameters(self, scope: Any) -> list[str]:
        params = scope.child_by_field_name("parameters")
        if params is None:
            return []
        kinds = {"identifier"}
        names: list[str] = []
        for node in _walk(params, kinds):
            names.append(_text(node))
        return names

    def _binding_pairs(self, node: Any) -> Iterator[tuple[str, Any | None]]:
        kind = node.type
        if kind in ("const_spec", "var_spec"):
            names = [child for child in node.children_by_field_name("name")]
            value = node.child_by_field_name("value")
            values = list(value.named_children) if value is not None else []
            for index, name in enumerate(names):
                if values:
                    yield _text(name), values[index] if index < len(values) else None
        elif kind in ("short_var_declaration", "assignment_statement"):
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            if left is None or right is None:
                return
            operator = [child.type for child in node.children if not child.is_named]
            lhs = list(left.named_children)
            rhs = list(right.named_children)
            plain = any(op in (":=", "=") for op in operator)
            for index, name in enumerate(lhs):
                if name.type != "identifier":
                    continue
                yield _text(name), (rhs[index] if plain and len(rhs) == len(lhs) else None)
        elif kind == "range_clause":
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            if left is None or right is None:
                return
            names = list(left.named_children)
            if names:
                yield _text(names[-1]), right
                for other in names[:-1]:
                    yield _text(other), None
        elif kind in ("let_declaration", "const_item", "static_item"):
            pattern = node.child_by_field_name("pattern") or node.child_by_field_name("name")
            value = node.child_by_field_name("value")
            if pattern is not None and pattern.type == "identifier":
                yield _text(pattern), value
        elif kind == "for_expression":
            pattern = node.child_by_field_name("pattern")
            value = node.child_by_field_name("value")
            if pattern is not None and pattern.type == "identifier" and value is not None:
                yield _text(pattern), value

    def _value_of(self, node: Any, scope: Any) -> tuple[str, ...] | None:
        value = _string_value(node)
        if value is not None:
            return (value,)
        if node.type in ("composite_literal", "array_expression"):
            return _flatten_strings(node)
        if node.type == "macro_invocation" and _text(node).startswith("vec!"):
            tree = next((child for child in node.named_children if child.type == "token_tree"), None)
            return _flatten_strings(tree) if tree is not None else None
        if node.type == "reference_expression":
            inner = node.child_by_field_name("value")
            return self._value_of(inner, scope) if inner is not None else None
        if node.type == "identifier":
            expr = self.resolve_identifier(node, exclude_scope=None)
            if expr.static is not None:
                return (expr.static,)
            return expr.choices or None
        return None

    # -- resolution ---------------------------------------------------------------------------
    def resolve_identifier(self, node: Any, exclude_scope: Any | None = None) -> Expr:
        name = _text(node)
        # a loop variable is bound by the nearest enclosing `for ... range` / `for x in` that names it
        current = node.parent
        while current is not None and current.type not in _FUNCTIONS:
            clause = None
            if current.type == "for_statement":
                clause = next((child for child in current.named_children if child.type == "range_clause"), None)
            elif current.type == "for_expression":
                clause = current
            if clause is not None:
                for bound, value in self._binding_pairs(clause):
                    if bound == name:
                        values = self._value_of(value, current) if value is not None else None
                        return _choices(values, name) if values else Expr(static=None, prefix="", source="")
            current = current.parent
        scope = self._scope_of(node)
        seen = 0
        while scope is not None and seen < 8:
            seen += 1
            bindings = self._bindings(scope)
            if name in bindings:
                values = bindings[name]
                if values is None:
                    return Expr(static=None, prefix="", source="")
                return _choices(values, name)
            if scope.id == self.root.id:
                break
            scope = self._scope_of(scope)
        return Expr(static=None, prefix="", source=name)

    def _returns(self) -> dict[str, tuple[str, ...] | None]:
        if self.functions is None:
            self.functions = {}
            kinds = {"function_declaration"} if self.lang == "go" else {"function_item"}
            for function in _walk(self.root, kinds):
                name = function.child_by_field_name("name")
                body = function.child_by_field_name("body")
                if name is None or body is None:
                    continue
                values: list[str] = []
                ok = True
                for ret in _walk(body, {"return_statement", "return_expression"}):
                    if self._scope_of(ret).id != function.id:
                        continue
                    inner = [child for child in ret.named_children if child.type != "comment"]
                    if inner and inner[0].type == "expression_list":
                        inner = list(inner[0].named_children)
                    literal = _string_value(inner[0]) if len(inner) == 1 else None
                    if literal is None:
                        ok = False
                        break
                    values.append(literal)
                self.functions[_text(name)] = tuple(dict.fromkeys(values)) if ok and values else None
        return self.functions

    def resolve(self, node: Any | None) -> Expr:
        if node is None:
            return _UNKNOWN
        literal = _string_value(node)
        if literal is not None:
            return Expr(static=literal, prefix=literal, source=_text(node))
        kind = node.type
        if kind == "identifier":
            return self.resolve_identifier(node)
        if kind in ("parenthesized_expression", "reference_expression"):
            inner = node.named_children[-1] if node.named_children else None
            return self.resolve(inner)
        if kind == "selector_expression":  # pkg.Const (Go): another file of the package may define it
            field = node.child_by_field_name("field")
            return Expr(static=None, prefix="", source=_text(field) if field is not None else "")
        if kind == "call_expression":
            function = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            if function is not None and function.type == "identifier" and arguments is not None and not arguments.named_children:
                values = self._returns().get(_text(function))
                if values:
                    return _choices(values, _text(function))
            return _UNKNOWN
        if kind == "binary_expression":
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            operator = node.child_by_field_name("operator")
            if operator is not None and _text(operator) == "+" and left is not None and right is not None:
                a, b = self.resolve(left), self.resolve(right)
                if a.static is not None and b.static is not None:
                    return Expr(static=a.static + b.static, prefix=a.static + b.static)
                return Expr(static=None, prefix=a.static if a.static is not None else a.prefix, suffix=b.static or "")
        return _UNKNOWN


def _choices(values: tuple[str, ...], source: str) -> Expr:
    if len(values) == 1:
        return Expr(static=values[0], prefix=values[0], source=source)
    return Expr(static=None, prefix="", choices=values, source=source)


# loop variables (range_clause, for_expression) are bound by their loop, see resolve_identifier
_GO_BINDINGS = frozenset({"const_spec", "var_spec", "short_var_declaration", "assignment_statement"})
_RUST_BINDINGS = frozenset({"let_declaration", "const_item", "static_item"})
_FUNCTIONS = frozenset({"function_declaration", "method_declaration", "func_literal", "function_item", "closure_expression"})


def _literal_default(node: Any | None) -> Expr | None:
    if node is None:
        return None
    value = _string_value(node)
    if value is not None:
        return Expr(static=value, prefix=value, source=_text(node))
    text = _text(node)
    if node.type in ("int_literal", "float_literal", "integer_literal", "true", "false", "boolean_literal"):
        return Expr(static=text, prefix=text, source=text)
    if text in ("nil", "None"):
        return Expr(static=None, is_none=True, source=text)
    return Expr(static=None, source=text if len(text) <= 80 else text[:77] + "...")


def _callee(function: Any) -> tuple[tuple[str, ...], bool]:
    """The called name as components, and whether it is a member/selector call (``x.f``)."""
    kind = function.type
    if kind == "identifier":
        return (_text(function),), False
    if kind == "selector_expression":  # Go: pkg.F or obj.F
        operand = function.child_by_field_name("operand")
        field = function.child_by_field_name("field")
        if field is None:
            return (), False
        # `cmd.Flags().Bool("x")`: the operand is a value, never a package: it matches no dotted spec
        head = _text(operand) if operand is not None and operand.type in ("identifier", "package_identifier") else "()"
        return (head, _text(field)), True
    if kind == "scoped_identifier":  # Rust: a::b::f
        return tuple(part for part in _text(function).replace(" ", "").split("::") if part), False
    if kind == "field_expression":  # Rust: obj.f
        field = function.child_by_field_name("field")
        return ((_text(field),), True) if field is not None else ((), False)
    if kind == "generic_function":
        inner = function.child_by_field_name("function")
        return _callee(inner) if inner is not None else ((), False)
    return (), False


def _matches(spec: WrapperSpec, qualified: tuple[str, ...], member: bool) -> bool:
    if spec.member:
        return member and qualified[-1:] == spec.dotted[-1:]
    n = min(len(spec.dotted), len(qualified))
    return n > 0 and qualified[-n:] == spec.dotted[-n:]


def _with_ref(reads: list[EnvRead], name: Expr) -> list[EnvRead]:
    if name.static is None and not name.choices and name.source:
        return [replace(read, ref=name.source) for read in reads]
    return reads


def _wrapper_reads(wrappers: Sequence[WrapperSpec], qualified: tuple[str, ...], member: bool, args: list[Any],
                   resolver: _Resolver, relpath: str, language: str) -> list[EnvRead]:
    """The reads of one call through a ``--wrapper`` spec (the first spec whose spelling matches), the same
    in Go and Rust: the name at the spec's position, its default where the spec names one."""
    spec = next((spec for spec in wrappers if _matches(spec, qualified, member)), None)
    if spec is None or spec.position >= len(args):
        return []
    name = resolver.resolve(args[spec.position])
    default = None
    if spec.default_position is not None and spec.default_position < len(args):
        default = _literal_default(args[spec.default_position])
    form = f"wrapper {spec.text} ({language})"
    return _with_ref(make_reads(name, default, relpath, _line(args[spec.position]), form), name)


def _go_import_names(root: Any) -> set[str]:
    """The local names of package ``os`` (and ``syscall``) in a Go file (``o "os"`` -> o)."""
    names = {"os", "syscall"}
    for spec in _walk(root, {"import_spec"}):
        path = spec.child_by_field_name("path")
        alias = spec.child_by_field_name("name")
        value = _string_value(path) if path is not None else None
        if value in ("os", "syscall"):
            names.add(_text(alias) if alias is not None else value)
        elif alias is not None and _text(alias) in ("os", "syscall"):
            names.discard(_text(alias))  # another package imported under the name os
    return names


def scan_go_text(text: str, relpath: str, wrappers: Sequence[WrapperSpec] = ()) -> FileScan:
    """Scan one Go file's text for environment reads (see the module docstring)."""
    result = FileScan(file=relpath, parsed=True)
    wrapper_names = {spec.dotted[-1] for spec in wrappers}
    has_tags = "env:\"" in text or "envconfig:\"" in text
    processes = "kelseyhightower/envconfig" in text and "Process(" in text
    words = ("Getenv", "LookupEnv", "Environ()", *(("Process(",) if processes else ()))
    if not any(word in text for word in words) and not has_tags and not any(name in text for name in wrapper_names):
        result.parsed = False
        return result
    tree = _parser("go").parse(text.encode("utf-8"))
    root = tree.root_node
    if has_tags:
        result.reads.extend(_go_struct_tags(root, relpath))
    if processes:
        result.reads.extend(_go_envconfig_process(root, relpath))
    if root.has_error:
        result.notes.append(f"{relpath}: tree-sitter-go found syntax errors; reads in the broken parts may be missed")
    packages = _go_import_names(root)
    resolver = _Resolver("go", root)
    if "Environ()" in text:
        result.reads.extend(_go_environ_scans(root, packages, relpath))
    for call in _walk(root, {"call_expression"}):
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if function is None or arguments is None:
            continue
        qualified, member = _callee(function)
        if not qualified:
            continue
        args = [child for child in arguments.named_children if child.type != "comment"]
        if len(qualified) == 2 and qualified[0] in packages and qualified[1] in ("Getenv", "LookupEnv"):
            if not args:
                continue
            name = resolver.resolve(args[0])
            form = f"{qualified[0]}.{qualified[1]} (Go)"
            result.reads.extend(_with_ref(make_reads(name, None, relpath, _line(args[0]), form), name))
            if name.static is None and not name.choices:
                _note_param_helper(call, args[0], resolver, result.param_helpers, relpath)
            continue
        if qualified[-1] in wrapper_names:
            result.reads.extend(_wrapper_reads(wrappers, qualified, member, args, resolver, relpath, "Go"))
    result.constants = _go_file_constants(resolver)
    result.go_package = _go_package(root)
    return result


def _go_package(root: Any) -> str:
    clause = next((child for child in root.named_children if child.type == "package_clause"), None)
    name = next((child for child in clause.named_children if child.type == "package_identifier"), None) \
        if clause is not None else None
    return _text(name) if name is not None else ""


def _parameters_by_position(function: Any) -> dict[str, int]:
    """A function's parameter names by position among what a caller passes: Go ``func f(dir, prefix
    string, n int)`` gives prefix -> 1; Rust ``fn f(&self, name: &str)`` gives name -> 0 (``self`` is
    the receiver, not passed)."""
    params = function.child_by_field_name("parameters")
    positions: dict[str, int] = {}
    index = 0
    for declaration in params.named_children if params is not None else ():
        if declaration.type in ("parameter_declaration", "variadic_parameter_declaration"):  # Go
            names = declaration.children_by_field_name("name")
            for name in names or [None]:
                if name is not None:
                    positions[_text(name)] = index
                index += 1
        elif declaration.type == "parameter":  # Rust
            pattern = declaration.child_by_field_name("pattern")
            if pattern is not None and pattern.type == "identifier":
                positions[_text(pattern)] = index
            index += 1
    return positions


def _plus_operands(node: Any) -> list[Any]:
    """The operands of a chain of ``+`` (``"A" + p + "B"``: three), parentheses and ``&`` dropped."""
    while node.type in ("parenthesized_expression", "reference_expression") and node.named_children:
        node = node.named_children[-1]
    operator = node.child_by_field_name("operator") if node.type == "binary_expression" else None
    if operator is None or _text(operator) != "+":
        return [node]
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None:
        return [node]
    return [*_plus_operands(left), *_plus_operands(right)]


_DECLARED = ("function_declaration", "method_declaration", "function_item")
_REBINDINGS = frozenset({"assignment_statement", "short_var_declaration", "inc_statement",  # Go
                         "let_declaration", "assignment_expression", "compound_assignment_expr"})  # Rust


def _rebinds(body: Any, param: str) -> bool:
    """Whether the function body assigns (Go) or assigns or shadows with ``let`` (Rust) ``param``."""
    for node in _walk(body, _REBINDINGS):
        left = node.child_by_field_name("left") or node.child_by_field_name("pattern")
        if left is None:
            continue
        if _text(left) == param or any(_text(child) == param for child in left.named_children):
            return True
    return False


def _note_param_helper(call: Any, arg: Any, resolver: _Resolver, helpers: dict[str, list[ParamHelper]], relpath: str) -> None:
    """A function whose env read's name is one of its parameters, alone or between literals
    (Go ``func resolveFixture(dir, prefix string) { os.Getenv(prefix + "_FILE") }``, Rust ``fn
    env_flag(name: &str, default: bool) -> bool { std::env::var(name) ... }``): its callers name the
    variable, so its call sites are resolved (``_helper_call_reads``). Not when the parameter is
    assigned (or, in Rust, shadowed) in the function, nor from inside a closure or function literal
    (the parameter may be another one's by then), nor for a name built from two parameters."""
    function = call.parent
    while function is not None and function.type not in _FUNCTIONS:
        function = function.parent
    if function is None or function.type not in _DECLARED:
        return
    name = function.child_by_field_name("name")
    body = function.child_by_field_name("body")
    if name is None or body is None:
        return
    params = _parameters_by_position(function)
    operands = _plus_operands(arg)
    found = [(index, node) for index, node in enumerate(operands) if node.type == "identifier" and _text(node) in params]
    if len(found) != 1:
        return
    at, param = found[0]
    texts: list[str] = []
    for node in operands[:at] + operands[at + 1:]:
        value = resolver.resolve(node).static
        if value is None:
            return
        texts.append(value)
    if _rebinds(body, _text(param)):
        return
    parameters = function.child_by_field_name("parameters")
    method = function.type == "method_declaration" or (
        function.type == "function_item" and parameters is not None
        and any(child.type == "self_parameter" for child in parameters.named_children))
    public = function.type == "function_item" and any(child.type == "visibility_modifier" for child in function.children)
    helper = ParamHelper(_text(name), params[_text(param)], "".join(texts[:at]), "".join(texts[at:]), method,
                         relpath, _line(call), public)
    if helper not in helpers.setdefault(helper.function, []):
        helpers[helper.function].append(helper)


def _helper_call_reads(root: Any, resolver: _Resolver, relpath: str, helpers: Sequence[ParamHelper], read: str,
                       language: str) -> list[EnvRead]:
    """Calls in one parsed file of helpers that pass a parameter to an env read: the argument at that
    position, between the helper's literals, is the name read. A computed argument is left alone (the
    helper's own read already says its name is computed)."""
    by_name: dict[str, list[ParamHelper]] = {}
    for helper in helpers:
        by_name.setdefault(helper.function, []).append(helper)
    reads: list[EnvRead] = []
    for call in _walk(root, {"call_expression"}):
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if function is None or arguments is None:
            continue
        qualified, member = _callee(function)
        if not qualified or qualified[-1] not in by_name:
            continue
        if len(qualified) > 1 and not member and qualified[0] != "Self":
            continue  # `pkg::f` / `other::f`: not this file's function
        args = [child for child in arguments.named_children if child.type not in ("comment", "line_comment", "block_comment")]
        for helper in by_name[qualified[-1]]:
            # a method is called as `x.f(...)`; a function as `f(...)` (Rust also `Self::f(...)`)
            if helper.method != member or helper.position >= len(args):
                continue
            value = resolver.resolve(args[helper.position])
            names = (value.static,) if value.static is not None else value.choices
            form = f"helper {helper.function} -> {read} ({helper.file}:{helper.line}) ({language})"
            for one in names:
                full = helper.prefix + one + helper.suffix
                reads.extend(make_reads(Expr(static=full, prefix=full), None, relpath, _line(args[helper.position]), form))
    return reads


def go_helper_calls(text: str, relpath: str, package: str, helpers: Sequence[ParamHelper]) -> list[EnvRead]:
    """Calls, in one Go file of the helpers' package (same folder, same ``package`` clause), of Go
    helpers that pass a parameter to ``os.Getenv`` (``_helper_call_reads``)."""
    if not any(f"{helper.function}(" in text for helper in helpers):
        return []
    root = _parser("go").parse(text.encode("utf-8")).root_node
    if _go_package(root) != package:
        return []
    return _helper_call_reads(root, _Resolver("go", root), relpath, helpers, "os.Getenv", "Go")


def go_constants(text: str) -> dict[str, tuple[str, ...]]:
    """File-level names of a Go file bound only to literals (``const x = "X"``)."""
    if "const" not in text and "var" not in text:
        return {}
    return _go_file_constants(_Resolver("go", _parser("go").parse(text.encode("utf-8")).root_node))


_ENV_TAG = re.compile(r'(?:^|\s)(?P<key>env|envconfig):"(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?P<more>(?:,[^",]*)*)"')
# caarlos0/env's options after the name (``env:"PORT,required"``); any other item of an ``env:"..."``
# list is a further name, as alecthomas/kong reads ``env:"LOCALAI_THREADS,THREADS"`` (first set wins).
_ENV_TAG_OPTIONS = frozenset({"required", "file", "unset", "notEmpty", "expand", "init"})
_ENV_DEFAULT_TAG = re.compile(r'(?:^|\s)(?:envDefault|default):"(?P<value>[^"]*)"')


_GATHER = re.compile(r"([^A-Z]+|[A-Z]+[^A-Z]+|[A-Z]+)")  # kelseyhightower/envconfig's split_words
_ACRONYM = re.compile(r"([A-Z]+)([A-Z][^A-Z]+)")
_TAG_PAIR = re.compile(r'(\w+):"([^"]*)"')


def envconfig_key(prefix: str, field: str, tag: str) -> tuple[str, str]:
    """(key, alt) kelseyhightower/envconfig looks up for a field: the field name (split into words
    joined by ``_`` with ``split_words:"true"``, replaced by the ``envconfig:"..."`` tag when given),
    ``PREFIX_`` in front when Process got a prefix, upper-cased; alt is the upper-cased tag ("" if none),
    looked up when the key is unset."""
    tags = dict(_TAG_PAIR.findall(tag))
    alt = tags.get("envconfig", "").split(",")[0].upper()
    key = field
    if tags.get("split_words", "").lower() in ("true", "1", "t"):
        words = []
        for word in _GATHER.findall(field):
            match = re.search(_ACRONYM, word)
            words.extend([match[1], match[2]] if match else [word])
        key = "_".join(words) or field
    if alt:
        key = alt
    if prefix:
        key = f"{prefix}_{key}"
    return key.upper(), alt


def _go_envconfig_process(root: Any, relpath: str) -> list[EnvRead]:
    """``envconfig.Process("myapp", &s)`` (kelseyhightower/envconfig) with ``s`` a ``var s Spec`` or
    ``s := Spec{}`` of a struct type declared in the same file: each exported field without
    ``ignored:"true"`` reads the name envconfig builds (:func:`envconfig_key`). A prefix that is not a
    literal, a type of another file, and fields of nested structs give nothing."""
    structs: dict[str, Any] = {}
    for spec in _walk(root, {"type_spec"}):
        name, kind = spec.child_by_field_name("name"), spec.child_by_field_name("type")
        if name is not None and kind is not None and kind.type == "struct_type":
            structs[_text(name)] = kind
    variables: dict[str, str] = {}
    for spec in _walk(root, {"var_spec"}):
        kind = spec.child_by_field_name("type")
        if kind is not None and kind.type == "type_identifier":
            for child in spec.children_by_field_name("name"):
                variables[_text(child)] = _text(kind)
    for declaration in _walk(root, {"short_var_declaration"}):
        left, right = declaration.child_by_field_name("left"), declaration.child_by_field_name("right")
        if left is None or right is None or len(left.named_children) != 1 or len(right.named_children) != 1:
            continue
        value = right.named_children[0]
        if value.type == "unary_expression" and value.named_children:
            value = value.named_children[-1]
        kind = value.child_by_field_name("type") if value.type == "composite_literal" else None
        if kind is not None and kind.type == "type_identifier":
            variables[_text(left.named_children[0])] = _text(kind)
    reads: list[EnvRead] = []
    for call in _walk(root, {"call_expression"}):
        function, arguments = call.child_by_field_name("function"), call.child_by_field_name("arguments")
        if function is None or arguments is None:
            continue
        qualified, _ = _callee(function)
        if qualified not in (("envconfig", "Process"), ("envconfig", "MustProcess")):
            continue
        args = [child for child in arguments.named_children if child.type != "comment"]
        if len(args) != 2:
            continue
        prefix = _string_value(args[0])
        target = args[1]
        if target.type == "unary_expression" and target.named_children:
            target = target.named_children[-1]
        struct = structs.get(variables.get(_text(target), "")) if prefix is not None and target.type == "identifier" else None
        if struct is None:
            continue
        form = f"envconfig.Process({prefix!r}) field (Go)"
        for field in _walk(struct, {"field_declaration"}):
            tag_node = field.child_by_field_name("tag")
            tag = (_string_value(tag_node) or "") if tag_node is not None else ""
            kind = field.child_by_field_name("type")
            if 'ignored:"true"' in tag or kind is None or kind.type in ("struct_type", "pointer_type"):
                continue
            default_match = re.search(r'(?:^|\s)default:"([^"]*)"', tag)
            default = Expr(static=default_match[1], prefix=default_match[1]) if default_match else None
            for name_node in field.children_by_field_name("name"):
                field_name = _text(name_node)
                if not field_name[:1].isupper() or (kind.type == "type_identifier" and _text(kind) in structs):
                    continue
                key, alt = envconfig_key((prefix or "").upper(), field_name, tag)
                for name in dict.fromkeys([key, alt]):
                    if name:
                        reads.extend(make_reads(Expr(static=name, prefix=name), default, relpath, _line(name_node), form))
    return reads


def _go_struct_tags(root: Any, relpath: str) -> list[EnvRead]:
    """Struct fields tagged for env-loading libraries: ``env:"PORT"`` (caarlos0/env,
    sethvargo/go-envconfig) and ``envconfig:"PORT"`` (kelseyhightower/envconfig, which also accepts
    the name with the prefix given to ``Process``); ``envDefault:"3000"`` / ``default:"3000"`` is the
    default compared with the doc."""
    reads: list[EnvRead] = []
    for field in _walk(root, {"field_declaration"}):
        tag = field.child_by_field_name("tag")
        value = _string_value(tag) if tag is not None else None
        if not value:
            continue
        match = _ENV_TAG.search(value)
        if match is None:
            continue
        names = [match["name"].upper() if match["key"] == "envconfig" else match["name"]]  # envconfig upper-cases it
        if match["key"] == "env":
            names += [
                item
                for item in match["more"].split(",")[1:]
                if item not in _ENV_TAG_OPTIONS and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", item)
            ]
        found = _ENV_DEFAULT_TAG.search(value)
        default = Expr(static=found["value"], prefix=found["value"]) if found else None
        if found and "${" in found["value"]:  # kong interpolates `default:"${basepath}/models"` at run time
            default = Expr(static=None, prefix=found["value"].split("${", 1)[0], source=found["value"])
        form = f"struct tag {match['key']}:\"...\" (Go)"
        for name in dict.fromkeys(names):
            reads.extend(make_reads(Expr(static=name, prefix=name), default, relpath, _line(tag), form))
    return reads


def _go_environ_scans(root: Any, packages: set[str], relpath: str) -> list[EnvRead]:
    """``for _, kv := range os.Environ() { if strings.HasPrefix(kv, "OLLAMA_") ...`` reads the family
    ``OLLAMA_*``, so a documented family is covered and never called stale."""
    reads: list[EnvRead] = []
    for loop in _walk(root, {"for_statement"}):
        clause = next((child for child in loop.named_children if child.type == "range_clause"), None)
        if clause is None:
            continue
        right = clause.child_by_field_name("right")
        left = clause.child_by_field_name("left")
        if right is None or left is None or right.type != "call_expression":
            continue
        function = right.child_by_field_name("function")
        qualified = _callee(function)[0] if function is not None else ()
        if len(qualified) != 2 or qualified[0] not in packages or qualified[1] != "Environ":
            continue
        names = list(left.named_children)
        if not names:
            continue
        var = _text(names[-1])
        body = loop.child_by_field_name("body")
        for call in _walk(body, {"call_expression"}) if body is not None else ():
            callee = call.child_by_field_name("function")
            arguments = call.child_by_field_name("arguments")
            if callee is None or arguments is None or _callee(callee)[0] != ("strings", "HasPrefix"):
                continue
            args = list(arguments.named_children)
            if len(args) == 2 and _text(args[0]) == var:
                prefix = _string_value(args[1])
                if prefix:
                    form = "os.Environ() scanned by prefix (Go)"
                    reads.extend(make_reads(Expr(static=None, prefix=prefix), None, relpath, _line(call), form))
    return reads


def _go_file_constants(resolver: _Resolver) -> dict[str, tuple[str, ...]]:
    """File-level names bound only to literals (for other files of the same package)."""
    return {name: values for name, values in resolver._bindings(resolver.root).items() if values}


_ENV_VAR_FUNCS = {"var", "var_os"}


def _screaming(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.removeprefix("r#")).upper()


def scan_rust_text(text: str, relpath: str, wrappers: Sequence[WrapperSpec] = ()) -> FileScan:
    """Scan one Rust file's text for environment reads (see the module docstring)."""
    result = FileScan(file=relpath, parsed=True)
    wrapper_names = {spec.dotted[-1] for spec in wrappers}
    if "env" not in text and not any(name in text for name in wrapper_names):
        result.parsed = False
        return result
    tree = _parser("rust").parse(text.encode("utf-8"))
    root = tree.root_node
    if root.has_error:
        result.notes.append(f"{relpath}: tree-sitter-rust found syntax errors; reads in the broken parts may be missed")
    bare_var = bool(re.search(r"use\s+std::env::\{?[^;]*\bvar(_os)?\b", text))
    resolver = _Resolver("rust", root)
    build_script = relpath.rsplit("/", 1)[-1] == "build.rs"
    for node in _walk(root, {"call_expression", "macro_invocation", "attribute_item"}):
        if node.type == "macro_invocation":
            macro = node.child_by_field_name("macro")
            if macro is None:
                continue
            if _text(macro) not in _ENV_MACROS:
                result.reads.extend(_token_tree_reads(node, resolver, relpath, build_script))
                continue
            tree_node = next((child for child in node.named_children if child.type == "token_tree"), None)
            first = tree_node.named_children[0] if tree_node is not None and tree_node.named_children else None
            if first is None:
                continue
            name = resolver.resolve(first)
            form = f"{_text(macro)}! (Rust, compile time)"
            result.reads.extend(make_reads(name, None, relpath, _line(first), form))
            continue
        if node.type == "attribute_item":
            result.reads.extend(_clap_reads(node, relpath))
            continue
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if function is None or arguments is None:
            continue
        qualified, member = _callee(function)
        if not qualified:
            continue
        args = [child for child in arguments.named_children if child.type not in ("line_comment", "block_comment")]
        is_env = qualified[-1] in _ENV_VAR_FUNCS and not member and (
            (len(qualified) >= 2 and qualified[-2] == "env") or (len(qualified) == 1 and bare_var)
        )
        if is_env:
            if not args:
                continue
            name = resolver.resolve(args[0])
            if name.static is None and not name.choices and args[0].type == "scoped_identifier":
                # `env::var(other_crate::NAME_ENV)`: resolved against the Rust files' constants later
                last = args[0].child_by_field_name("name")
                if last is not None and last.type == "identifier":
                    name = replace(name, source=_text(last))
            form = f"{'::'.join(qualified)} (Rust{', build script' if build_script else ''})"
            result.reads.extend(_with_ref(make_reads(name, None, relpath, _line(args[0]), form), name))
            if name.static is None and not name.choices:
                _note_param_helper(node, args[0], resolver, result.param_helpers, relpath)
            continue
        if qualified[-1] in wrapper_names:
            result.reads.extend(_wrapper_reads(wrappers, qualified, member, args, resolver, relpath, "Rust"))
    if result.param_helpers:  # in its own file here; a `pub` one also where it is `use`d (rust_helper_calls)
        found = [helper for helpers in result.param_helpers.values() for helper in helpers]
        result.reads.extend(_helper_call_reads(root, resolver, relpath, found, "std::env::var", "Rust"))
    result.constants = _go_file_constants(resolver)
    return result


def rust_helper_calls(text: str, relpath: str, helper: ParamHelper) -> list[EnvRead]:
    """Calls of a ``pub`` / ``pub(crate)`` Rust helper from another file of its crate (the caller
    decides that the two share a ``src/`` folder) that imports it by name from its module: ``use
    crate::utils::get_env_bool;`` or ``use crate::utils::{a, get_env_bool};`` for a helper of
    ``utils.rs`` (or ``utils/mod.rs``), then ``get_env_bool("X", true)``."""
    stem = helper.file.rsplit("/", 1)[-1].removesuffix(".rs")
    module = helper.file.rsplit("/", 2)[-2] if stem == "mod" and "/" in helper.file else stem
    name = re.escape(helper.function)
    if not re.search(rf"\buse\s+[\w:]*\b{re.escape(module)}::(?:{name}\b|\{{[^}}]*\b{name}\b)", text):
        return []
    root = _parser("rust").parse(text.encode("utf-8")).root_node
    return _helper_call_reads(root, _Resolver("rust", root), relpath, [helper], "std::env::var", "Rust")


def rust_constants(text: str) -> dict[str, tuple[str, ...]]:
    """Items of a Rust file bound only to literals (``pub const NAME_ENV: &str = "X";``)."""
    if "const" not in text and "static" not in text:
        return {}
    return _go_file_constants(_Resolver("rust", _parser("rust").parse(text.encode("utf-8")).root_node))


_ENV_MACROS = frozenset(
    {"env", "option_env", "std::env", "core::env", "std::option_env", "core::option_env"}
)


def _token_tree_reads(macro: Any, resolver: _Resolver, relpath: str, build_script: bool) -> list[EnvRead]:
    """Reads written inside another macro's arguments, which tree-sitter leaves as bare tokens:
    ``thread_local! { static X: bool = { match std::env::var("X") { .. } } }``,
    ``include_bytes!(env!("X"))``, ``println!("{}", env::var("X")?)``. Only the two unambiguous
    token shapes count: ``env :: var|var_os ( ARG`` and ``env|option_env ! ( ARG``, with ARG a
    string literal or a name bound to one."""
    reads: list[EnvRead] = []
    for tree in _walk(macro, {"token_tree"}):
        tokens = [child for child in tree.children if child.type not in ("line_comment", "block_comment")]
        for index, token in enumerate(tokens):
            if token.type != "token_tree" or index < 2 or _text(token)[:1] != "(":
                continue
            inner = [child for child in token.named_children if child.type not in ("line_comment", "block_comment")]
            if not inner or inner[0].type not in ("string_literal", "raw_string_literal", "identifier"):
                continue
            if len(inner) > 1 and token.children[2].type not in (",", ")"):
                continue  # the argument is an expression, not one literal or name
            head, sep = tokens[index - 1], tokens[index - 2]
            if head.type == "!" and sep.type == "identifier" and _text(sep) in ("env", "option_env"):
                form = f"{_text(sep)}! (Rust, compile time, inside a macro)"
            elif (
                head.type == "identifier"
                and _text(head) in _ENV_VAR_FUNCS
                and sep.type == "::"
                and index >= 3
                and _text(tokens[index - 3]) == "env"
            ):
                form = f"env::{_text(head)} (Rust{', build script' if build_script else ''}, inside a macro)"
            else:
                continue
            name = resolver.resolve(inner[0]) if inner[0].type == "identifier" else None
            if inner[0].type != "identifier":
                literal = _string_value(inner[0])
                if literal is None:
                    continue
                name = Expr(static=literal, prefix=literal)
            assert name is not None
            reads.extend(make_reads(name, None, relpath, _line(inner[0]), form))
    return reads


def _clap_reads(node: Any, relpath: str) -> list[EnvRead]:
    """``#[clap(long, env)]`` / ``#[arg(env = "X")]`` on a struct field: the field's env var."""
    attribute = next((child for child in node.named_children if child.type == "attribute"), None)
    if attribute is None:
        return []
    head = attribute.named_children[0] if attribute.named_children else None
    if head is None or _text(head) not in ("clap", "arg"):
        return []
    arguments = attribute.child_by_field_name("arguments")
    if arguments is None:
        return []
    tokens = [child for child in arguments.children if child.type not in ("(", ")")]
    for index, token in enumerate(tokens):
        if token.type != "identifier" or _text(token) != "env":
            continue
        before = tokens[index - 1] if index else None
        if before is not None and before.type != ",":
            continue  # part of another key's value
        after = tokens[index + 1] if index + 1 < len(tokens) else None
        if after is not None and after.type == "=":
            value = tokens[index + 2] if index + 2 < len(tokens) else None
            literal = _string_value(value) if value is not None else None
            if literal is None:
                return []
            assert value is not None
            return make_reads(Expr(static=literal, prefix=literal), _clap_default(tokens), relpath, _line(value), 'clap env = "..." (Rust)')
        if after is not None and after.type != ",":
            continue
        field = node.next_named_sibling
        while field is not None and field.type in ("attribute_item", "line_comment", "block_comment"):
            field = field.next_named_sibling
        if field is not None and field.type == "ERROR" and field.named_children:
            field_name = field.named_children[0]  # an excerpt outside its struct: `name: type` recovered as an error
            if field_name.type != "identifier":
                return []
        elif field is None or field.type != "field_declaration":
            return []
        else:
            field_name = field.child_by_field_name("name")
        if field_name is None:
            return []
        name = _screaming(_text(field_name))
        form = "clap env (Rust, from the field name)"
        return make_reads(Expr(static=name, prefix=name), _clap_default(tokens), relpath, _line(token), form)
    return []


def _clap_default(tokens: list[Any]) -> Expr | None:
    """``default_value = "x"`` (or ``default_value_t = 3``) in the same attribute."""
    for index, token in enumerate(tokens[:-2]):
        if token.type == "identifier" and _text(token) in ("default_value", "default_value_t") and tokens[index + 1].type == "=":
            return _literal_default(tokens[index + 2])
    return None
