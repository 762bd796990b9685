"""Generated source mutants of an engine's numeric code: small, plausible kernel bugs, not crashes.

Each operator walks a module's AST and proposes edits of one source span (the text is replaced in
place, so the rest of the file keeps its formatting and the diff is one hunk). A proposal is kept only
when the mutated module still compiles and differs from the original. Every mutant carries a unified
diff with ``a/`` and ``b/`` prefixes relative to the tree's root, so it applies with ``git apply`` to a
copy of the tree exactly like a declared ``patch`` mutation. Its ``description`` is read back from
the code it emits (``OLD -> NEW``, the smallest changed expression or statements of the two modules'
ASTs, unparsed), so it can never say something the diff does not do; what the operator meant is its
``intent``. Text pasted into a rewrite is parenthesized as its new place needs (a node's span never
includes the parentheses around it).

The operators model the bugs engine commits introduce (docs/mutate.md, "Code mutants"):

==================  ============================================================================
operator            what it does to the code
==================  ============================================================================
const-nudge         a float constant (an eps, a RoPE theta, a scale) times (1 + 1e-3) or (1 + 1e-6)
compare-boundary    ``<`` <-> ``<=``, ``>`` <-> ``>=`` (a block or length boundary moves by one)
index-shift         ``p // bs`` -> ``(p - 1) // bs``; a slice bound or ``range`` end -/+ 1
reduction-order     a sum over an axis reversed along that axis, or split in two halves
rounding            a bf16/fp8 rounding call dropped (its argument passes through); a bf16
                    rounding added after ``astype(float32)``; ``rint`` -> ``trunc``
dtype-promote       a ``float32`` intermediate computed in ``float64`` (or the other way round)
reassociate         ``(a + b) + c`` -> ``a + (b + c)`` (and for ``*``); ``x / y`` ->
                    ``x * (1.0 / y)``; ``x - max(...)`` -> ``x`` (softmax without its max
                    subtraction); ``fma(a, b, c)`` -> ``a * b + c`` (unfused)
threshold-skip      a loop body skipped once its index passes a threshold (layer/block skipped
                    only for long inputs)
key-drop            a cache key (a tuple assigned to a ``*key*`` name) loses one of its parts
counter-swap        ``self.hits += 1`` counted on another counter of the same class
==================  ============================================================================
"""

from __future__ import annotations

import ast
import difflib
import fnmatch
import hashlib
import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

OPERATORS: tuple[str, ...] = (
    "const-nudge",
    "compare-boundary",
    "index-shift",
    "reduction-order",
    "rounding",
    "dtype-promote",
    "reassociate",
    "threshold-skip",
    "key-drop",
    "counter-swap",
)

NUDGES = (1e-3, 1e-6)
SKIP_THRESHOLD = 2  # threshold-skip: the body runs for indices 0 and 1, then is skipped
ROUNDING_NAME_PARTS = ("round", "bf16", "fp8", "quantize")
TYPE_CONSTRUCTORS = {"Callable", "Union", "Optional", "Literal", "tuple", "dict", "list", "Mapping", "Sequence"}
REDUCERS = {"sum", "reduce"}  # np.sum(x, axis=A), np.add.reduce(x, axis=A), x.sum(axis=A)


class ScopeError(Exception):
    """The configured scope matches no code (a configuration error, exit 2)."""


@dataclass(frozen=True)
class CodeMutant:
    """One generated mutant. ``ident`` is stable across runs on the same source (file, line, column,
    operator, variant), so a ledger of confirmed equivalents and a verdict cache can key on it."""

    ident: str
    path: str  # relative to the tree root, '/'-separated
    line: int
    statement_line: int  # the first line of the statement it is in: what line coverage records
    function: str  # the enclosing function ("<module>" at top level)
    operator: str
    description: str  # what the code really changed: ``OLD -> NEW``, unparsed from the two ASTs
    intent: str  # the rewrite the operator meant (``(a * b) * c -> a * (b * c)``); the test suite
    # checks that the emitted code is that rewrite, the description shows what it is
    original: str  # the replaced source text
    replacement: str
    diff: str  # unified diff, git-apply-able from the tree root

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.diff.encode("utf-8")).hexdigest()[:16]

    @property
    def ledger_key(self) -> str:
        """The digest of the diff without its hunk headers' line numbers: the same edit in the same
        context (the file, three lines either side) keeps its key when an edit elsewhere in the file
        moves it, so a confirmed equivalence in the ledger survives the move. A change to the mutated
        code or its context is a new key: that mutant is judged again."""
        lines = ["@@" if line.startswith("@@") else line for line in self.diff.splitlines()]
        return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class _Edit:
    start: int  # byte offsets into the encoded source
    end: int
    text: str
    operator: str
    intent: str
    line: int
    col: int
    statement_line: int


class _Source:
    """A module's text with byte offsets for AST positions (``col_offset`` counts UTF-8 bytes)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.data = text.encode("utf-8")
        self.line_starts = [0]
        for index, byte in enumerate(self.data):
            if byte == 0x0A:
                self.line_starts.append(index + 1)

    def offset(self, line: int, col: int) -> int:
        return self.line_starts[line - 1] + col

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end = self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        return start, end

    def segment(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.data[start:end].decode("utf-8")

    def indent_of(self, line: int) -> str:
        start = self.line_starts[line - 1]
        raw = self.data[start:].split(b"\n", 1)[0].decode("utf-8")
        return raw[: len(raw) - len(raw.lstrip())]

    def apply(self, edit: _Edit) -> str:
        return (self.data[: edit.start] + edit.text.encode("utf-8") + self.data[edit.end :]).decode("utf-8")


def _float_repr(value: float) -> str:
    text = repr(value)
    return text if any(c in text for c in ".einf") else text + ".0"


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else ""
    return ""


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return None


def _is_counter_increment(node: ast.AST) -> bool:
    """``self.NAME += 1``: a counter (``self.bytes += size`` is an accumulator, not a counter)."""
    return (isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add)
            and isinstance(node.target, ast.Attribute) and _dotted(node.target.value) == "self"
            and isinstance(node.value, ast.Constant) and node.value.value == 1)


_BINARY: dict[type, int] = {ast.BitOr: 7, ast.BitXor: 8, ast.BitAnd: 9, ast.LShift: 10, ast.RShift: 10,
                            ast.Add: 11, ast.Sub: 11, ast.Mult: 12, ast.MatMult: 12, ast.Div: 12,
                            ast.FloorDiv: 12, ast.Mod: 12, ast.Pow: 14}
ATOM = 16  # names, attributes, calls, subscripts, constants, displays: never need parentheses
COMPARE = 6


def _precedence(node: ast.AST) -> int:
    """How tightly an expression binds (Python's grammar, lowest first), for parenthesizing pasted text."""
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)]
    if isinstance(node, ast.UnaryOp):
        return 5 if isinstance(node.op, ast.Not) else 13
    if isinstance(node, ast.Compare):
        return COMPARE
    if isinstance(node, ast.BoolOp):
        return 4 if isinstance(node.op, ast.And) else 3
    if isinstance(node, ast.IfExp):
        return 2
    if isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Tuple, ast.Starred, ast.Yield, ast.YieldFrom)):
        return 0  # (a bare tuple's span has no parentheses either)
    if isinstance(node, ast.Await):
        return 15
    return ATOM


class _Proposer(ast.NodeVisitor):
    """Collects edits for the enabled operators; tracks the enclosing function and class."""

    def __init__(self, source: _Source, operators: frozenset[str], numpy_name: str | None,
                 bf16_name: str | None = None) -> None:
        self.src = source
        self.operators = operators
        self.np = numpy_name
        self.bf16 = bf16_name
        self.edits: list[tuple[_Edit, str]] = []
        self.function_stack: list[str] = []
        self.class_counters: list[set[str]] = []
        self.statement_line = 1

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.stmt):
            outer, self.statement_line = self.statement_line, node.lineno
            try:
                super().visit(node)
            finally:
                self.statement_line = outer
        else:
            super().visit(node)

    # -- bookkeeping ---------------------------------------------------------------------------
    @property
    def function(self) -> str:
        return ".".join(self.function_stack) or "<module>"

    def add(self, operator: str, node: ast.AST, text: str, intent: str,
            span: tuple[int, int] | None = None) -> None:
        if operator not in self.operators:
            return
        start, end = span if span is not None else self.src.span(node)
        edit = _Edit(start, end, text, operator, intent, node.lineno, node.col_offset,  # type: ignore[attr-defined]
                     self.statement_line)
        self.edits.append((edit, self.function))

    def operand(self, node: ast.expr, least: int) -> str:
        """``node``'s source as an operand that binds at least ``least`` (an operator's precedence, one
        more for a right operand): parenthesized when it binds less. A node's span never includes the
        parentheses around it, so ``hd * (p + 1)``'s right operand is the text ``p + 1``: pasted bare
        into ``b * c`` it would read ``hd * p + 1``."""
        text = self.src.segment(node)
        return text if _precedence(node) >= least else f"({text})"

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        counters = {child.target.attr for child in ast.walk(node)
                    if isinstance(child, ast.AugAssign) and isinstance(child.target, ast.Attribute)
                    and _is_counter_increment(child)}
        self.function_stack.append(node.name)
        self.class_counters.append(counters)
        self.generic_visit(node)
        self.class_counters.pop()
        self.function_stack.pop()

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.function_stack.append(node.name)
        # decorators and annotations are not numeric code
        for statement in node.body:
            self.visit(statement)
        self.function_stack.pop()

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    # -- operators -------------------------------------------------------------------------------
    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstrings
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, float) and value not in (0.0, 1.0, -1.0) and value == value and abs(value) != float("inf"):
            for nudge in NUDGES:
                new = value * (1.0 + nudge)
                if new != value:
                    self.add("const-nudge", node, _float_repr(new), f"{value!r} -> {new!r} (relative {nudge:g})")

    def visit_Compare(self, node: ast.Compare) -> None:
        swaps: dict[type, str] = {ast.Lt: "<=", ast.LtE: "<", ast.Gt: ">=", ast.GtE: ">"}
        if len(node.ops) == 1 and type(node.ops[0]) in swaps:
            left, right = self.operand(node.left, COMPARE + 1), self.operand(node.comparators[0], COMPARE + 1)
            op = swaps[type(node.ops[0])]
            old = {"<=": "<", "<": "<=", ">=": ">", ">": ">="}[op]
            self.add("compare-boundary", node, f"{left} {op} {right}", f"'{old}' -> '{op}'")
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        seg, operand = self.src.segment, self.operand
        add, mul = _BINARY[ast.Add], _BINARY[ast.Mult]
        if isinstance(node.op, ast.FloorDiv) and isinstance(node.left, (ast.Name, ast.Attribute, ast.Subscript)):
            self.add("index-shift", node, f"({seg(node.left)} - 1) // {operand(node.right, mul + 1)}",
                     f"{seg(node.left)} // ... -> ({seg(node.left)} - 1) // ...")
        if (isinstance(node.op, ast.Add) and isinstance(node.left, ast.BinOp)
                and isinstance(node.left.op, ast.Add)):
            a, b, c = operand(node.left.left, add), operand(node.left.right, add), operand(node.right, add + 1)
            self.add("reassociate", node, f"{a} + ({b} + {c})", "(a + b) + c -> a + (b + c)")
        if (isinstance(node.op, ast.Mult) and isinstance(node.left, ast.BinOp)
                and isinstance(node.left.op, ast.Mult)):
            a, b, c = operand(node.left.left, mul), operand(node.left.right, mul), operand(node.right, mul + 1)
            self.add("reassociate", node, f"{a} * ({b} * {c})", "(a * b) * c -> a * (b * c)")
        if isinstance(node.op, ast.Div) and not isinstance(node.right, ast.Constant):
            self.add("reassociate", node, f"{operand(node.left, mul)} * (1.0 / {operand(node.right, mul + 1)})",
                     "x / y -> x * (1.0 / y)")
        if isinstance(node.op, ast.Sub) and isinstance(node.right, ast.Call):
            callee = _dotted(node.right.func)
            if callee.split(".")[-1] in ("max", "amax"):
                self.add("reassociate", node, operand(node.left, add), f"x - {callee}(...) -> x (no max subtraction)")
        self.generic_visit(node)

    def visit_Slice(self, node: ast.Slice) -> None:
        if node.upper is not None and not isinstance(node.upper, ast.UnaryOp):
            text = self.src.segment(node.upper)
            self.add("index-shift", node.upper, f"({text}) - 1", f"slice end {text} -> {text} - 1")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        callee = _dotted(node.func)
        last = node.func.attr if isinstance(node.func, ast.Attribute) else callee.split(".")[-1]
        seg = self.src.segment
        if callee == "range" and node.args:
            end = node.args[1] if len(node.args) >= 2 else node.args[0]
            text = seg(end)
            self.add("index-shift", end, f"{self.operand(end, _BINARY[ast.Add])} - 1", f"range end {text} -> {text} - 1")
        # rounding: drop a rounding call (argument passes through), or rint/round -> trunc
        if (len(node.args) == 1 and not node.keywords and last
                and any(part in last.lower() for part in ROUNDING_NAME_PARTS) and not last.startswith("_")
                and not isinstance(node.args[0], ast.Starred)):
            self.add("rounding", node, f"({seg(node.args[0])})", f"{callee}(x) dropped -> x")
        if (self.np and self.bf16 and last == "astype" and len(node.args) == 1
                and _dotted(node.args[0]) == f"{self.np}.float32"):
            self.add("rounding", node, f"{seg(node)}.astype({self.bf16}).astype({self.np}.float32)",
                     "a bf16 rounding added after astype(float32)")
        if self.np and callee in (f"{self.np}.rint", f"{self.np}.round", f"{self.np}.around") and node.args:
            self.add("rounding", node.func, f"{self.np}.trunc", f"{callee} -> {self.np}.trunc (truncation)")
        if "fma" in last.lower() and len(node.args) == 3 and not node.keywords:
            a, b, c = (seg(arg) for arg in node.args)
            self.add("reassociate", node, f"(({a}) * ({b}) + ({c}))", f"{callee}(a, b, c) unfused -> a * b + c")
        # reduction order
        axis = _keyword(node, "axis")
        if self.np and axis is not None and last in REDUCERS:
            if callee in (f"{self.np}.sum", f"{self.np}.add.reduce") and node.args:
                x, a = seg(node.args[0]), seg(axis)
                rest = seg(node)[len(seg(node.func)) :]
                flipped = rest.replace(x, f"{self.np}.flip({x}, axis={a})", 1)
                self.add("reduction-order", node, f"{callee}{flipped}", f"{callee} reversed along axis {a}")
                half = (f"(lambda _t, _a: {self.np}.add.reduce({self.np}.take(_t, range(_t.shape[_a] // 2), axis=_a), axis=_a)"
                        f" + {self.np}.add.reduce({self.np}.take(_t, range(_t.shape[_a] // 2, _t.shape[_a]), axis=_a),"
                        f" axis=_a))({x}, {a})")
                self.add("reduction-order", node, half, f"{callee} split in two halves along axis {a}")
            elif isinstance(node.func, ast.Attribute) and last == "sum" and callee != f"{self.np}.sum":
                x, a = seg(node.func.value), seg(axis)
                self.add("reduction-order", node, f"{self.np}.flip({x}, axis={a}).sum(axis={a})",
                         f"{x}.sum reversed along axis {a}")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if self.np and _dotted(node.value) == self.np and node.attr in ("float32", "float64"):
            other = "float64" if node.attr == "float32" else "float32"
            self.add("dtype-promote", node, f"{self.np}.{other}", f"{self.np}.{node.attr} -> {self.np}.{other}")
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        index: str | None = None
        if isinstance(node.target, ast.Name):
            index = node.target.id
        elif (isinstance(node.target, ast.Tuple) and node.target.elts and isinstance(node.target.elts[0], ast.Name)
              and isinstance(node.iter, ast.Call) and _dotted(node.iter.func) == "enumerate"):
            index = node.target.elts[0].id
        iterates_range = isinstance(node.iter, ast.Call) and _dotted(node.iter.func) in ("range", "enumerate")
        if index and index != "_" and iterates_range and node.body:
            first = node.body[0]
            indent = self.src.indent_of(first.lineno)
            at = self.src.offset(first.lineno, 0)
            text = f"{indent}if {index} >= {SKIP_THRESHOLD}:\n{indent}    continue\n"
            self.add("threshold-skip", first, text, f"loop over {index} skipped from {index} >= {SKIP_THRESHOLD}",
                     span=(at, at))
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:  # the annotation is a type, not numeric code
            self.visit(node.value)

    def visit_Assign(self, node: ast.Assign) -> None:
        if isinstance(node.value, ast.Subscript) and _dotted(node.value.value).split(".")[-1] in TYPE_CONSTRUCTORS:
            return  # a type alias (Body = Callable[[...], np.float32])
        if (len(node.targets) == 1 and isinstance(node.value, ast.Tuple) and len(node.value.elts) >= 2
                and "key" in _dotted(node.targets[0]).lower()):
            parts = [self.src.segment(e) for e in node.value.elts]
            for drop, part in enumerate(parts):
                kept = [p for i, p in enumerate(parts) if i != drop]
                text = "(" + ", ".join(kept) + ("," if len(kept) == 1 else "") + ")"
                self.add("key-drop", node.value, text, f"key loses its part {part}")
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if self.class_counters and _is_counter_increment(node):
            assert isinstance(node.target, ast.Attribute)
            for other in sorted(self.class_counters[-1] - {node.target.attr}):
                self.add("counter-swap", node.target, f"self.{other}",
                         f"self.{node.target.attr} += ... counted on self.{other}")
        self.generic_visit(node)


def _one_line(node: ast.AST) -> str:
    """``ast.unparse`` on one line (a statement's indented body joined with spaces)."""
    return " ".join(part.strip() for part in ast.unparse(node).splitlines())


def same_tree(old: object, new: object) -> bool:
    """Two AST nodes (or lists of them, or field values) that are the same code."""
    if isinstance(old, ast.AST) and isinstance(new, ast.AST):
        return ast.dump(old) == ast.dump(new)
    if isinstance(old, list) and isinstance(new, list):
        return len(old) == len(new) and all(same_tree(x, y) for x, y in zip(old, new, strict=True))
    return old == new


def code_pair(old: object, new: object) -> bool:
    """Both an expression or a statement (or both a comprehension's ``for`` or a keyword argument): a
    difference inside is read there; one in an operator token or a name field is shown with the
    expression around it."""
    return (isinstance(old, (ast.expr, ast.stmt)) and isinstance(new, (ast.expr, ast.stmt))) or (
        type(old) is type(new) and isinstance(old, (ast.comprehension, ast.keyword)))


def _changed(before: ast.AST, after: ast.AST) -> tuple[str, str]:
    """The smallest expression or statement(s) where two ASTs differ, unparsed: what a mutant really
    changed, read from the code the generator emitted, never from what the operator meant to do."""
    while True:
        if type(before) is type(after):
            fields: list[tuple[Any, Any]] = [(getattr(before, f, None), getattr(after, f, None)) for f in before._fields]
            differing = [(old, new) for old, new in fields if not same_tree(old, new)]
            if len(differing) == 1:
                old, new = differing[0]
                if isinstance(old, list) and isinstance(new, list):
                    if (old or new) and all(isinstance(x, ast.stmt) for x in (*old, *new)):
                        return _changed_statements(old, new)
                    pairs = ([(x, y) for x, y in zip(old, new, strict=True) if not same_tree(x, y)]
                             if len(old) == len(new) else [])
                    if len(pairs) == 1 and code_pair(*pairs[0]):
                        before, after = pairs[0]
                        continue
                elif code_pair(old, new):
                    before, after = old, new
                    continue
        return _one_line(before), _one_line(after)


def _changed_statements(old: list[ast.stmt], new: list[ast.stmt]) -> tuple[str, str]:
    """Two statement lists that differ: the differing run between their common head and tail (with
    the next statement when one side is empty, so an inserted statement reads ``X -> NEW; X``)."""
    dumps_old, dumps_new = [ast.dump(x) for x in old], [ast.dump(x) for x in new]
    head = 0
    while head < min(len(old), len(new)) and dumps_old[head] == dumps_new[head]:
        head += 1
    tail = 0
    while (tail < min(len(old), len(new)) - head and dumps_old[len(old) - 1 - tail] == dumps_new[len(new) - 1 - tail]):
        tail += 1
    a, b = old[head: len(old) - tail], new[head: len(new) - tail]
    if len(a) == len(b) == 1:
        return _changed(a[0], b[0])
    if not a or not b:  # an insertion or a deletion: show the statement it sits before
        after = len(old) - tail
        if after < len(old):
            a, b = [*a, old[after]], [*b, new[len(new) - tail]]
    return "; ".join(_one_line(x) for x in a) or "(nothing)", "; ".join(_one_line(x) for x in b) or "(nothing)"


def describe(original: str, mutated: str) -> str:
    """``OLD -> NEW``: the smallest part of the module that the mutant changed, both sides unparsed
    from the ASTs of the original and the mutated module."""
    old, new = _changed(ast.parse(original), ast.parse(mutated))
    return f"{old} -> {new}"


def _bf16_name(tree: ast.Module) -> str | None:
    """A module-level name bound to the bf16 dtype by an import (``BF16``, ``bfloat16``)."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name in ("BF16", "bfloat16"):
                    return alias.asname or alias.name
    return None


def _numpy_name(tree: ast.Module) -> str | None:
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "numpy":
                    return alias.asname or "numpy"
    return None


def mutants_of_source(text: str, path: str, *, operators: Iterable[str] = OPERATORS,
                      include_functions: Sequence[str] = (), exclude_functions: Sequence[str] = ()) -> list[CodeMutant]:
    """Every mutant of one module's source. ``path`` is how the diff names the file."""
    unknown = sorted(set(operators) - set(OPERATORS))
    if unknown:
        raise ScopeError(f"unknown mutation operator(s) {', '.join(unknown)}; known: {', '.join(OPERATORS)}")
    tree = ast.parse(text, filename=path)
    source = _Source(text)
    proposer = _Proposer(source, frozenset(operators), _numpy_name(tree), _bf16_name(tree))
    proposer.visit(tree)
    mutants: list[CodeMutant] = []
    seen: set[str] = set()
    counts: dict[tuple[int, int, str], int] = {}
    for edit, function in proposer.edits:
        if include_functions and not any(fnmatch.fnmatchcase(function, p) for p in include_functions):
            continue
        if any(fnmatch.fnmatchcase(function, p) for p in exclude_functions):
            continue
        mutated = source.apply(edit)
        if mutated == text or mutated in seen:
            continue
        try:
            compile(mutated, path, "exec", dont_inherit=True)
        except SyntaxError:
            continue
        seen.add(mutated)
        variant_key = (edit.line, edit.col, edit.operator)
        variant = counts.get(variant_key, 0)
        counts[variant_key] = variant + 1
        diff = "".join(difflib.unified_diff(
            text.splitlines(keepends=True), mutated.splitlines(keepends=True),
            fromfile=f"a/{path}", tofile=f"b/{path}", n=3))
        mutants.append(CodeMutant(
            ident=f"{path}:{edit.line}:{edit.col}:{edit.operator}:{variant}",
            path=path, line=edit.line, statement_line=edit.statement_line, function=function, operator=edit.operator,
            description=describe(text, mutated), intent=edit.intent,
            original=source.data[edit.start : edit.end].decode("utf-8"),
            replacement=edit.text, diff=diff))
    return mutants


def python_files(root: Path, paths: Sequence[str]) -> list[Path]:
    """The ``.py`` files under ``paths`` (files or folders, relative to ``root``), sorted."""
    found: set[Path] = set()
    for entry in paths:
        target = (root / entry).resolve()
        if target.is_file() and target.suffix == ".py":
            found.add(target)
        elif target.is_dir():
            found.update(p for p in target.rglob("*.py") if "__pycache__" not in p.parts)
    return sorted(found)


def generate(root: Path, paths: Sequence[str], *, operators: Iterable[str] = OPERATORS,
             include_functions: Sequence[str] = (), exclude_functions: Sequence[str] = (),
             exclude_files: Sequence[str] = ()) -> list[CodeMutant]:
    """All mutants of the Python files under ``paths``; a scope that matches no code is a ScopeError."""
    root = Path(root).resolve()
    files = [f for f in python_files(root, paths)
             if not any(fnmatch.fnmatchcase(f.relative_to(root).as_posix(), g) for g in exclude_files)]
    if not files:
        raise ScopeError(f"code mutants: no Python file under {', '.join(paths) or '(nothing)'} in {root}; "
                         "fix the paths in [mutate.code] (relative to the project root)")
    mutants: list[CodeMutant] = []
    for file in files:
        relative = file.relative_to(root).as_posix()
        mutants.extend(mutants_of_source(file.read_text(encoding="utf-8"), relative, operators=operators,
                                         include_functions=include_functions, exclude_functions=exclude_functions))
    if not mutants:
        raise ScopeError(f"code mutants: the scope ({len(files)} file(s) under {', '.join(paths)}) yields no mutant; "
                         "widen the paths, functions or operators in [mutate.code]")
    return mutants


def sample(mutants: Sequence[CodeMutant], budget: int | None, seed: int) -> list[CodeMutant]:
    """A reproducible random sample of ``budget`` mutants (all of them when ``budget`` is None),
    kept in source order."""
    if budget is None or budget >= len(mutants):
        return list(mutants)
    chosen = set(random.Random(seed).sample(range(len(mutants)), budget))
    return [m for i, m in enumerate(mutants) if i in chosen]


def by_operator(mutants: Iterable[CodeMutant]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for mutant in mutants:
        counts[mutant.operator] = counts.get(mutant.operator, 0) + 1
    return counts


def iter_lines(mutants: Iterable[CodeMutant], describe: Callable[[CodeMutant], str] | None = None) -> Iterator[str]:
    for mutant in mutants:
        yield describe(mutant) if describe else f"{mutant.ident}  {mutant.description}"


def mutated_text(text: str, diff: str) -> str:
    """Apply a unified diff made by ``codemutants`` (context 3, one file) to ``text``."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    position = 0
    body = diff.splitlines(keepends=True)
    index = 0
    while index < len(body):
        header = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", body[index])
        index += 1
        if header is None:
            continue
        start = int(header.group(1)) - (0 if header.group(2) == "0" else 1)
        out.extend(lines[position:start])
        position = start
        while index < len(body) and not body[index].startswith("@@"):
            line = body[index]
            index += 1
            if line.startswith("\\"):  # "\ No newline at end of file"
                if out and out[-1].endswith("\n"):
                    out[-1] = out[-1][:-1]
                continue
            tag, content = line[:1], line[1:]
            if tag in (" ", "-"):
                if position >= len(lines) or lines[position].rstrip("\r\n") != content.rstrip("\r\n"):
                    raise ValueError(f"the diff does not match the file at line {position + 1}")
                position += 1
            if tag in (" ", "+"):
                out.append(content)
    out.extend(lines[position:])
    return "".join(out)
