"""The shadow run at the mutated expression: weak mutation that proves strong equivalence on the suite.

A ledger entry's mutant changes one expression. In the shadow copy that expression ``E`` is rewritten
to ``_vtshadow_expr(KEYS, lambda: (E), (lambda: (E2),), FRESH, ITERATED)``: the engine goes on with ``E``'s value, and the
runtime (``vtgate.mutate.shadowrt``) evaluates the mutated ``E2`` right after it, in the same scope and
state, and compares the two values bit for bit. If on every evaluation the suite's probes make the two
values are the same, a run with the mutant in place computes the same value at that point each time,
so it makes the same calls with the same values all the way through: every probe observes the same
thing, without the mutant's own run of every gate.

The argument needs the second evaluation to change nothing and the two values to be interchangeable,
so an expression gets a shadow target only when its AST shows (else the entry is judged the usual way):

- ``E`` and ``E2`` are read, not assigned (no store, ``del`` or walrus), and are not inside an
  f-string, a lambda, a comprehension's condition scope it cannot close over, or at module or class
  level;
- every call in ``E2`` is one that has no effect: a builtin such as ``len``, ``range`` or ``min``, a
  function of ``math``, a NumPy function (not ``np.random``, never with ``out=``), or an array method
  that returns a new value (``astype``, ``reshape``, ``sum``, ...); no ``await``/``yield``.

And the runtime checks, per evaluation, that the values are interchangeable: both immutable (numbers,
NumPy scalars, dtypes, strings, tuples of them) with the same bits; or the same object; or both new
(``E`` and ``E2`` are arithmetic, comparisons or unary operations, which always build a new value)
with the same type, dtype, shape, strides and bytes. A value it cannot decide (an array one side may
share with something else) makes the entry uncheckable, never "same"."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass

from vtgate.mutate.codemutants import CodeMutant, code_pair, mutated_text, same_tree

SAFE_BUILTINS = frozenset({"abs", "bool", "complex", "divmod", "float", "int", "len", "max", "min", "pow", "range",
                           "round", "sum", "tuple"})
# NumPy functions with an effect (they write an argument or the library's state): never evaluated twice
NUMPY_EFFECTS = frozenset({"copyto", "put", "putmask", "place", "fill_diagonal", "put_along_axis", "seterr",
                           "seterrcall", "set_printoptions", "setbufsize", "save", "savez", "savez_compressed",
                           "savetxt", "errstate", "random"})
SAFE_METHODS = frozenset({"astype", "reshape", "sum", "max", "min", "mean", "view", "copy", "transpose", "ravel",
                          "item", "squeeze", "swapaxes", "argmax", "argmin", "cumsum", "dot", "any", "all",
                          "bit_length", "tobytes", "encode"})
# what always builds a new value (never hands back an object that exists elsewhere): arithmetic,
# comparisons, and these calls
FRESH_NUMPY = frozenset({"abs", "add", "arange", "ceil", "clip", "concatenate", "cos", "cumsum", "divide", "dot",
                         "einsum", "exp", "float32", "float64", "floor", "fmax", "fmin", "full", "linspace", "log",
                         "matmul", "max", "maximum", "min", "minimum", "multiply", "negative", "ones", "power", "prod",
                         "rint", "round", "sin", "sqrt", "square", "stack", "subtract", "sum", "tanh", "where",
                         "zeros"})
FRESH_METHODS = frozenset({"astype", "sum", "max", "min", "mean", "copy", "cumsum", "dot", "argmax", "argmin", "any",
                           "all"})


@dataclass(frozen=True)
class ExprTarget:
    """Where an entry's mutant is compared: the original expression's span and the mutated expression."""

    mutant: CodeMutant
    start: tuple[int, int]  # (line, column in characters), 1-based line
    end: tuple[int, int]
    original: str  # the expressions compared, unparsed (for the report)
    mutated: str
    fresh: bool  # both sides always build a new value
    iterated: bool  # the value is a for loop's (or a comprehension's) iterable and nothing else


def _path(before: ast.AST, after: ast.AST) -> list[tuple[ast.AST, ast.AST]]:
    """The pairs of nodes from the two modules' roots down to the smallest pair where they differ."""
    path = [(before, after)]
    while True:
        if type(before) is not type(after):
            return path
        fields = [(getattr(before, f, None), getattr(after, f, None)) for f in before._fields]
        differing = [(old, new) for old, new in fields if not same_tree(old, new)]
        if len(differing) != 1:
            return path
        old, new = differing[0]
        if isinstance(old, list) and isinstance(new, list):
            pairs = [(x, y) for x, y in zip(old, new, strict=True) if not same_tree(x, y)] if len(old) == len(new) else []
            if len(pairs) != 1 or not code_pair(*pairs[0]):
                return path
            old, new = pairs[0]
        elif not code_pair(old, new):
            return path
        assert isinstance(old, ast.AST) and isinstance(new, ast.AST)
        before, after = old, new
        path.append((before, after))


def _unsafe(node: ast.expr, numpy_names: set[str]) -> str | None:
    """Why evaluating ``node`` a second time may have an effect (None: its AST shows none)."""
    for part in ast.walk(node):
        if isinstance(part, (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.Lambda, ast.JoinedStr)):
            return f"holds {type(part).__name__}"
        if isinstance(part, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return "holds a comprehension"
        if isinstance(part, (ast.Name, ast.Attribute, ast.Subscript)) and not isinstance(part.ctx, ast.Load):
            return "stores"
        if isinstance(part, ast.Call):
            if any(k.arg == "out" for k in part.keywords):
                return "a call with out="
            function = part.func
            if isinstance(function, ast.Name) and function.id in SAFE_BUILTINS:
                continue
            if isinstance(function, ast.Attribute):
                root = function.value
                if isinstance(root, ast.Name) and root.id == "math":
                    continue
                if isinstance(root, ast.Name) and root.id in numpy_names:
                    if function.attr in NUMPY_EFFECTS:
                        return f"calls {ast.unparse(function)}, which has an effect"
                    continue
                if function.attr in SAFE_METHODS:
                    continue
            return f"calls {ast.unparse(function)}, which may have an effect"
    return None


def _fresh(node: ast.expr, numpy_names: set[str]) -> bool:
    """``node`` always builds a new value: arithmetic, a comparison, a display (``[...]``, ``{...}``), or a
    call that returns a new array."""
    if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Dict, ast.List, ast.Set, ast.Tuple)):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        name, root = node.func.attr, node.func.value
        if isinstance(root, ast.Name) and root.id in numpy_names:
            return name in FRESH_NUMPY
        return name in FRESH_METHODS and not any(k.arg == "copy" for k in node.keywords)
    return False


def _may_share(node: ast.AST, numpy_names: set[str]) -> bool:
    """``node`` may give a view of (or the very) array it is built from: a subscript, an attribute,
    ``reshape``/``view``/``transpose``..., or a NumPy function that may return its argument."""
    if isinstance(node, (ast.Subscript, ast.Attribute, ast.Name)):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        name, root = node.func.attr, node.func.value
        if isinstance(root, ast.Name) and root.id in numpy_names:
            return name not in FRESH_NUMPY
        return name in SAFE_METHODS and name not in FRESH_METHODS
    return False


def _numpy_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.update(a.asname or a.name for a in node.names if a.name == "numpy")
    return names


def _characters(lines: Sequence[str], line: int, byte_column: int) -> int:
    return len(lines[line - 1].encode("utf-8")[:byte_column].decode("utf-8"))


def target(mutant: CodeMutant, text: str) -> ExprTarget | str:
    """The expression target of ``mutant`` in the module ``text``, or why it has none. The expression is
    the largest one around the change that is still safe to evaluate twice (so a promotion that a
    later cast in the same expression undoes compares equal), within one statement."""
    if mutant.function == "<module>":
        return "at module level"
    before = ast.parse(text)
    path = _path(before, ast.parse(mutated_text(text, mutant.diff)))
    numpy_names = _numpy_names(before)
    bottom = len(path) - 1
    if not isinstance(path[bottom][0], ast.expr) or not isinstance(path[bottom][1], ast.expr):
        return "the mutant changes a statement, not one expression"
    why = next((w for w in (_unsafe(side, numpy_names) for side in path[bottom]) if w is not None), None)  # type: ignore[arg-type]
    if why is not None:
        return f"{ast.unparse(path[bottom][0])}: {why}"
    chosen = bottom
    while True:  # up to the next expression: a keyword argument (``dtype=np.float32``) is part of its call
        above = chosen - 1
        while above > 0 and all(isinstance(side, ast.keyword) for side in path[above]):
            above -= 1
        if above < 0 or not all(isinstance(side, ast.expr) for side in path[above]) or any(
                _unsafe(side, numpy_names) is not None for side in path[above]):  # type: ignore[arg-type]
            break
        chosen = above
    if _may_share(path[chosen][0], numpy_names):  # a view of the value (``(...).astype(f32)[:, None]``)
        fresh_below = [i for i in range(chosen + 1, bottom + 1) if all(
            isinstance(side, ast.expr) and _fresh(side, numpy_names) for side in path[i])]
        if fresh_below:  # the value itself is compared: new on both sides, so interchangeable when equal
            chosen = fresh_below[0]
    ancestors = [pair[0] for pair in path[:chosen]]
    scopes = [a for a in ancestors if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))]
    if not scopes or not isinstance(scopes[-1], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return "not in a function's own body"
    if any(isinstance(a, (ast.JoinedStr, ast.arguments)) for a in ancestors):
        return "inside an f-string or a default argument"
    old, new = path[chosen]
    assert isinstance(old, ast.expr) and isinstance(new, ast.expr)
    if old.end_lineno is None or old.end_col_offset is None:
        return "the expression has no end position"
    parent = ancestors[-1]
    iterated = isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is old
    lines = text.splitlines(keepends=True)
    return ExprTarget(mutant, (old.lineno, _characters(lines, old.lineno, old.col_offset)),
                      (old.end_lineno, _characters(lines, old.end_lineno, old.end_col_offset)), ast.unparse(old),
                      ast.unparse(new), _fresh(old, numpy_names) and _fresh(new, numpy_names), iterated)


def rewrite(text: str, targets: Sequence[ExprTarget], call: str) -> tuple[str, dict[str, str]]:
    """``text`` with each target's expression wrapped: ``call(KEYS, lambda: (E), (lambda: (E2), ...),
    FRESH, ITERATED)``, one wrapper for the targets of one span; a target whose span overlaps another
    span without being it is left out and returned (digest -> why)."""
    lines = text.splitlines(keepends=True)
    refused: dict[str, str] = {}
    spans: dict[tuple[tuple[int, int], tuple[int, int]], list[ExprTarget]] = {}
    for candidate in sorted(targets, key=lambda t: (t.start, t.end)):
        span = (candidate.start, candidate.end)
        if span not in spans and spans and candidate.start < max(spans)[1]:
            refused[candidate.mutant.digest] = f"its expression overlaps {spans[max(spans)][0].mutant.ident}'s"
            continue
        spans.setdefault(span, []).append(candidate)
    for ((first, a), (last, b)), group in sorted(spans.items(), reverse=True):  # from the end: earlier positions stay valid
        keys = tuple(t.mutant.digest for t in group)
        mutated = ", ".join(f"lambda: ({t.mutated})" for t in group)
        head = f"{call}({keys!r}, lambda: ("
        tail = f"), ({mutated},), {tuple(t.fresh for t in group)!r}, {group[0].iterated!r})"
        if first == last:
            line = lines[first - 1]
            lines[first - 1] = line[:a] + head + line[a:b] + tail + line[b:]
        else:
            lines[last - 1] = lines[last - 1][:b] + tail + lines[last - 1][b:]
            lines[first - 1] = lines[first - 1][:a] + head + lines[first - 1][a:]
    return "".join(lines), refused
