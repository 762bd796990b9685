"""Generated code mutants: each operator proposes a plausible kernel bug that compiles, changes the
code, and applies to a real git tree as the unified diff it carries."""

from __future__ import annotations

import ast
import subprocess
import textwrap
from pathlib import Path

import pytest
from vtgate.mutate.codemutants import OPERATORS, ScopeError, by_operator, generate, mutants_of_source, sample

KERNEL = textwrap.dedent('''\
    """A small kernel module written the way engines write them."""

    import numpy as np
    from ml_dtypes import bfloat16

    EPS = 1e-5
    Body = Callable[[np.ndarray], np.float32]


    def rmsnorm(x: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Docstring 0.5 < 1 is not code."""
        ms = np.sum(x * x, axis=-1) / x.shape[-1]
        return x / np.sqrt(ms + EPS) * w


    def softmax(s: np.ndarray) -> np.ndarray:
        z = np.exp(s - np.max(s, axis=-1, keepdims=True))
        return z / z.sum(axis=-1, keepdims=True)


    def gather(table, ctx, bs):
        nb = (ctx + bs - 1) // bs
        last = ctx // bs
        out = []
        for i in range(nb):
            if i < last:
                out.append(table[i][:bs])
        return np.rint(np.asarray(out, dtype=np.float32))


    def round_bf16(x):
        return x


    def fma_f32(a, b, c):
        return a * b + c


    def scaled(x, y, z, s):
        return fma_f32(x, y, z).astype(np.float32) * s * 0.5


    def layer_stack(x, layers):
        for i, layer in enumerate(layers):
            x = round_bf16(layer(x))
        return x


    class Cache:
        def __init__(self):
            self.hits = 0
            self.misses = 0
            self.size = 0

        def get(self, name, dtype, shape, entries):
            key = (name, dtype, shape)
            if key in entries:
                self.hits += 1
                return entries[key]
            self.misses += 1
            self.size += 4
            return None
    ''')


def test_every_operator_proposes_a_compiling_change_on_a_kernel_module() -> None:
    mutants = mutants_of_source(KERNEL, "pkg/kernels.py")
    assert set(by_operator(mutants)) == set(OPERATORS)
    for mutant in mutants:
        assert mutant.diff.startswith("--- a/pkg/kernels.py\n+++ b/pkg/kernels.py\n")
        assert mutant.original != mutant.replacement


def test_diffs_apply_with_git_apply_and_produce_code_that_compiles(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    target = tmp_path / "pkg" / "kernels.py"
    target.write_text(KERNEL, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for mutant in mutants_of_source(KERNEL, "pkg/kernels.py"):
        done = subprocess.run(["git", "-C", str(tmp_path), "apply", "-"], input=mutant.diff.encode(),
                              capture_output=True, check=False)
        assert done.returncode == 0, (mutant.ident, done.stderr)
        mutated = target.read_text(encoding="utf-8")
        assert mutated != KERNEL
        compile(mutated, "kernels.py", "exec")
        target.write_text(KERNEL, encoding="utf-8")


def test_docstrings_annotations_and_type_aliases_are_never_mutated() -> None:
    mutants = mutants_of_source(KERNEL, "k.py")
    lines = KERNEL.splitlines()
    touched = {lines[m.line - 1] for m in mutants}
    assert not any("Docstring" in line or line.startswith("Body =") or "def rmsnorm" in line for line in touched)


def test_kernel_bugs_are_the_ones_engine_commits_make() -> None:
    meant = {(m.operator, m.intent) for m in mutants_of_source(KERNEL, "k.py")}
    nudges = sorted(d for op, d in meant if op == "const-nudge" and d.startswith("1e-05"))
    assert len(nudges) == 2 and all(d.startswith("1e-05 -> 1.00") for d in nudges)
    assert {d.rsplit("(", 1)[1] for d in nudges} == {"relative 0.001)", "relative 1e-06)"}
    assert ("compare-boundary", "'<' -> '<='") in meant
    assert ("index-shift", "ctx // ... -> (ctx - 1) // ...") in meant
    assert ("reassociate", "x - np.max(...) -> x (no max subtraction)") in meant
    assert ("rounding", "round_bf16(x) dropped -> x") in meant
    assert ("rounding", "np.rint -> np.trunc (truncation)") in meant
    assert ("key-drop", "key loses its part dtype") in meant
    assert ("counter-swap", "self.hits += ... counted on self.misses") in meant
    assert ("threshold-skip", "loop over i skipped from i >= 2") in meant
    assert ("reassociate", "fma_f32(a, b, c) unfused -> a * b + c") in meant
    assert ("reassociate", "(a * b) * c -> a * (b * c)") in meant
    assert ("rounding", "a bf16 rounding added after astype(float32)") in meant
    # an accumulator is not a counter: self.size += 4 is never swapped, nor swapped onto
    assert not any("size" in d for op, d in meant if op == "counter-swap")


def test_a_description_is_the_code_the_mutant_changed_unparsed_from_both_asts() -> None:
    described = {(m.operator, m.description) for m in mutants_of_source(KERNEL, "k.py")}
    assert ("compare-boundary", "i < last -> i <= last") in described
    assert ("reassociate", "s - np.max(s, axis=-1, keepdims=True) -> s") in described
    assert ("rounding", "round_bf16(layer(x)) -> layer(x)") in described
    assert ("key-drop", "(name, dtype, shape) -> (name, shape)") in described
    assert ("counter-swap", "self.hits -> self.misses") in described
    assert ("reassociate", "fma_f32(x, y, z).astype(np.float32) * s * 0.5 -> "
            "fma_f32(x, y, z).astype(np.float32) * (s * 0.5)") in described
    assert ("threshold-skip", "x = round_bf16(layer(x)) -> if i >= 2: continue; x = round_bf16(layer(x))") in described
    for mutant in mutants_of_source(KERNEL, "k.py"):  # both sides are code of the two modules
        old, new = mutant.description.split(" -> ")
        mutated = KERNEL.encode()[: 0] + _applied(KERNEL, mutant).encode()
        assert old.split("; ")[0] in _flat(KERNEL) and new.split("; ")[0] in _flat(mutated.decode()), mutant


def _flat(source: str) -> str:
    return " ".join(part.strip() for part in ast.unparse(ast.parse(source)).splitlines())


def _applied(source: str, mutant) -> str:
    data = source.encode()
    lines = source.splitlines(keepends=True)
    start = sum(len(line.encode()) for line in lines[: mutant.line - 1])
    # from the node's own column (UTF-8 bytes) when its text starts there: a line may hold the same text
    # twice (`(f / w).write(g((f / w)...`); an edit that starts before its node searches from the line
    column = start + int(mutant.ident.split(":")[-3])
    at = start
    if mutant.original:
        at = column if data.startswith(mutant.original.encode(), column) else data.index(mutant.original.encode(), start)
    return (data[:at] + mutant.replacement.encode() + data[at + len(mutant.original.encode()):]).decode()


def _rewrite(operator_intent: str, node: ast.expr) -> ast.expr | None:
    """The rewrite an operator states, built from the original node's own operands."""
    if operator_intent in ("(a * b) * c -> a * (b * c)", "(a + b) + c -> a + (b + c)"):
        assert isinstance(node, ast.BinOp) and isinstance(node.left, ast.BinOp)
        op = node.op
        return ast.BinOp(node.left.left, op, ast.BinOp(node.left.right, op, node.right))
    if operator_intent == "x / y -> x * (1.0 / y)":
        assert isinstance(node, ast.BinOp)
        return ast.BinOp(node.left, ast.Mult(), ast.BinOp(ast.Constant(1.0), ast.Div(), node.right))
    if operator_intent.endswith("(no max subtraction)"):
        assert isinstance(node, ast.BinOp)
        return node.left
    if operator_intent.endswith("unfused -> a * b + c"):
        assert isinstance(node, ast.Call)
        a, b, c = node.args
        return ast.BinOp(ast.BinOp(a, ast.Mult(), b), ast.Add(), c)
    return None


# the operator of the node a rewrite applies to, where nodes nest at one column: in `x / y * w` the
# product and the quotient both start at x
_INTENT_OP: dict[str, type] = {"x / y -> x * (1.0 / y)": ast.Div}


def _node_at(tree: ast.AST, line: int, col: int, kinds: tuple[type, ...], op: type | None = None,
             source: str | None = None, text: str | None = None) -> ast.expr:
    found = [n for n in ast.walk(tree) if isinstance(n, kinds) and (n.lineno, n.col_offset) == (line, col)
             and (op is None or isinstance(getattr(n, "op", None), op))]
    assert found, (line, col)
    if source is not None and text is not None:  # nested nodes of one operator at one column: the replaced one
        found = [n for n in found if ast.get_source_segment(source, n) == text] or found
    return found[0]  # the outermost (ast.walk is breadth first)


def _check_reassociations(mutants, read) -> int:
    checked = 0
    for mutant in mutants:
        if mutant.operator != "reassociate":
            continue
        col = int(mutant.ident.split(":")[-3])
        original = read(mutant.path)
        # the operator's own node: an outer node may start at the same column (`x - max(t, 2) + 2`)
        op = ast.Sub if mutant.intent.endswith("(no max subtraction)") else _INTENT_OP.get(mutant.intent)
        before = _node_at(ast.parse(original), mutant.line, col, (ast.BinOp, ast.Call), op, original, mutant.original)
        expected = _rewrite(mutant.intent, before)
        assert expected is not None, mutant.intent
        after = ast.parse(_applied(original, mutant))
        # (at the mutant's line: outer parentheses move the column of the node they enclose)
        got = [n for n in ast.walk(after) if isinstance(n, ast.expr) and n.lineno == mutant.line
               and n.col_offset >= col and ast.dump(n) == ast.dump(expected)]
        assert got, f"{mutant.ident}: emitted {mutant.replacement!r} is not {mutant.intent}"
        checked += 1
    return checked


def test_reassociation_keeps_the_parentheses_its_operands_need() -> None:
    source = textwrap.dedent("""\
        def f(heads, hd, p, x, a, b, c, k, n):
            s = 1 << 21 // (heads * hd * (p + 1))
            t = x / (a * b)
            u = (a - b) / c
            v = a + b + (c - k)
            w = k // (n * a)
            return s, t, u, v, w
        """)
    emitted = {m.replacement for m in mutants_of_source(source, "f.py", operators=["reassociate", "index-shift"])}
    assert "heads * (hd * (p + 1))" in emitted  # was heads * (hd * p + 1): another expression
    assert "x * (1.0 / (a * b))" in emitted  # was x * (1.0 / a * b)
    assert "(a - b) * (1.0 / c)" in emitted  # was a - b * (1.0 / c)
    assert "a + (b + (c - k))" in emitted  # was a + (b + c - k)
    assert "(k - 1) // (n * a)" in emitted  # was (k - 1) // n * a
    assert _check_reassociations(mutants_of_source(source, "f.py"), lambda path: source) == 4


def test_every_reassociation_mutant_of_the_engine_is_the_rewrite_it_states() -> None:
    root = Path(__file__).resolve().parents[2]
    mutants = generate(root, ["engine/vtengine"], exclude_files=["engine/vtengine/cli.py"])
    checked = _check_reassociations(mutants, lambda path: (root / path).read_text(encoding="utf-8"))
    assert checked > 20


def test_identities_are_stable_and_unique() -> None:
    first = [m.ident for m in mutants_of_source(KERNEL, "k.py")]
    assert first == [m.ident for m in mutants_of_source(KERNEL, "k.py")]
    assert len(first) == len(set(first))


def test_operator_and_function_filters() -> None:
    only = mutants_of_source(KERNEL, "k.py", operators=["compare-boundary"])
    assert only and {m.operator for m in only} == {"compare-boundary"}
    in_softmax = mutants_of_source(KERNEL, "k.py", include_functions=["softmax"])
    assert in_softmax and {m.function for m in in_softmax} == {"softmax"}
    no_cache = mutants_of_source(KERNEL, "k.py", exclude_functions=["Cache.*"])
    assert not any(m.function.startswith("Cache") for m in no_cache)
    with pytest.raises(ScopeError, match="unknown mutation operator"):
        mutants_of_source(KERNEL, "k.py", operators=["flip-plus"])


def test_a_scope_that_matches_no_code_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ScopeError, match="no Python file under nowhere"):
        generate(tmp_path, ["nowhere"])
    (tmp_path / "empty.py").write_text("X = 'text only'\n", encoding="utf-8")
    with pytest.raises(ScopeError, match="yields no mutant"):
        generate(tmp_path, ["empty.py"])


def test_sampling_is_reproducible_and_keeps_source_order() -> None:
    mutants = mutants_of_source(KERNEL, "k.py")
    a, b = sample(mutants, 5, seed=7), sample(mutants, 5, seed=7)
    assert a == b and len(a) == 5
    assert [mutants.index(m) for m in a] == sorted(mutants.index(m) for m in a)
    assert sample(mutants, None, seed=7) == mutants


def test_the_engine_numeric_modules_yield_every_kind_of_kernel_bug() -> None:
    root = Path(__file__).resolve().parents[2]
    mutants = generate(root, ["engine/vtengine"], exclude_files=["engine/vtengine/cli.py"])
    operators = by_operator(mutants)
    assert set(operators) == set(OPERATORS), operators


def test_the_ledger_key_survives_lines_added_above_and_changes_with_the_mutated_code_or_its_context():
    before = {m.description + m.function: m for m in mutants_of_source(KERNEL, "k.py")}
    moved_text = KERNEL.replace('"""A small kernel module', '# a comment line added at the top\n"""A small kernel module')
    moved = {m.description + m.function: m for m in mutants_of_source(moved_text, "k.py")}
    assert before.keys() == moved.keys()
    for name, mutant in before.items():
        other = moved[name]
        assert other.line == mutant.line + 1 and other.digest != mutant.digest  # the diff's line numbers moved
        assert other.ledger_key == mutant.ledger_key  # the ledger's confirmation did not
    edited = KERNEL.replace("ms = np.sum(x * x, axis=-1) / x.shape[-1]", "ms = np.sum(x * x, axis=-1) / x.shape[1]")
    near = {m.description + m.function: m for m in mutants_of_source(edited, "k.py") if m.function == "rmsnorm"}
    changed = [name for name, m in near.items() if name in before and m.ledger_key != before[name].ledger_key]
    assert changed and len(changed) == len([n for n in near if n in before])  # every rmsnorm mutant sees the edit


def test_ledger_entries_that_no_mutant_matches_are_listed_with_their_id(tmp_path: Path):
    from vtgate.mutate.coderun import unmatched_ledger_entries

    mutants = mutants_of_source(KERNEL, "k.py")
    ledger = tmp_path / "equivalent.toml"
    ledger.write_text(f'[[equivalent]]\ndigest = "{mutants[0].ledger_key}"\nid = "{mutants[0].ident}"\nreason = "r"\n'
                      f'[[equivalent]]\ndigest = "{mutants[1].digest}"\nid = "{mutants[1].ident}"\nreason = "r"\n'
                      '[[equivalent]]\ndigest = "0123456789abcdef"\nid = "k.py:99:1:rounding:0"\nreason = "r"\n')
    assert unmatched_ledger_entries(ledger, mutants) == [{"digest": "0123456789abcdef", "id": "k.py:99:1:rounding:0"}]
    assert unmatched_ledger_entries(tmp_path / "absent.toml", mutants) == []
