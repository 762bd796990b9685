"""The shadow run: the ledger's entries checked against every call the suite makes, in one pass.

A ledger entry claims that its mutant changes no output. Judging it the way a mutant is judged (every
gate that reaches its line, on a copy with the mutant in place) costs a whole suite run per entry. The
shadow run checks the same claim for all entries at once: one copy of the engine in which each entry's
function ``f`` is a wrapper that runs the original (the engine goes on with its result) and then every
mutant of ``f`` on a deep copy of the call's arguments, and compares the outcomes bit for bit
(``vtgate.mutate.shadowrt``). The gates that reach the entries run once on that copy.

Why that stands in for the gates: if on every call the suite's probes make, the mutant returns (or
raises) exactly what the original does and leaves its arguments exactly as the original does, then a
run with the mutant in place makes the same calls with the same values all the way through, and every
probe observes the same thing. That holds only when the function's effects are its outcome and its
arguments, so an entry gets a shadow verdict only when all of these are checked:

- its function is a plain ``def`` at module level or in a class (not decorated, not a generator or
  coroutine), with no ``global`` statement, no store into (and no mutating method call on) a name that
  is not its own (a module-level cache, a registry), and no call that acts outside the process's
  objects whatever its receiver (``touch``, ``write_text``, ``unlink``, ``os``/``shutil``/``subprocess``
  functions, ``print``, ``open`` to write): an *effect outside its arguments*, read from its AST;
- every call of it was copied and compared (a lock or a C object among its arguments: uncheckable);
- the shadow copy's gates are green with the same observations as the unmutated tree's (running each
  mutant next to the original must not have disturbed anything a probe sees: a counter bumped twice, a
  random stream drawn twice), and no gate that reaches it measures time (``perf``);
- the function was called at least once.

Anything else, and an entry whose mutant differed on some call, is judged the usual way (every
reaching gate on its own copy, then the differential check). A difference the shadow saw is reported
but refutes nothing by itself: a function that reads a clock or a process-wide counter gives the
original and its mutant different values on the same call without either being wrong.
What the shadow run cannot see: time and memory (a mutant that is slower or larger but computes the same
values), and an effect through another function on state outside the arguments that the doubled run
hides (a set that the original and the mutant both add to, read later)."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vtgate.mutate import shadowexpr
from vtgate.mutate.codemutants import CodeMutant, mutated_text

PREFIX = "_vtshadow_"
RUNTIME = Path(__file__).resolve().with_name("shadowrt.py")
MUTATING = frozenset({
    "append", "extend", "insert", "pop", "popitem", "remove", "clear", "update", "add", "discard",
    "setdefault", "sort", "reverse", "write", "writelines", "write_text", "write_bytes", "put", "put_nowait",
    "bump", "inc", "increment", "record", "mkdir", "unlink", "rename", "replace", "touch", "rmdir",
    "send", "sendall", "acquire", "release", "set", "seed", "shuffle", "__setitem__", "__delitem__",
    "move_to_end", "appendleft", "extendleft", "popleft",
})


# Effects outside the process's objects, whatever the receiver (a local ``Path`` still touches the
# disk): files, folders, processes, sockets, the console; and the modules whose functions have them.
EXTERNAL = frozenset({
    "write", "writelines", "write_text", "write_bytes", "mkdir", "makedirs", "unlink", "rename", "replace", "touch",
    "rmdir", "symlink_to", "hardlink_to", "chmod", "send", "sendall", "kill", "terminate", "flush", "truncate",
})
EXTERNAL_MODULES = frozenset({"os", "shutil", "subprocess", "tempfile", "signal", "socket", "sys"})
PURE_OF_EXTERNAL = frozenset({"os.path", "os.fspath", "os.getenv", "os.environ.get", "os.getpid", "os.sep", "sys.modules",
                              "sys.version_info", "sys.maxsize", "sys.byteorder"})


def _external(call: ast.Call) -> str | None:
    """Why ``call`` may change something outside the process's objects (None: its form shows nothing)."""
    function = call.func
    if isinstance(function, ast.Name) and function.id in ("print", "input", "exec", "eval", "breakpoint"):
        return f"calls {function.id}()"
    if isinstance(function, ast.Name) and function.id == "open":
        mode = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "mode"), None)
        if mode is not None and not (isinstance(mode, ast.Constant) and isinstance(mode.value, str)
                                     and not set(mode.value) & set("wax+")):
            return "opens a file to write"
        return None
    if isinstance(function, ast.Attribute):
        dotted = ast.unparse(function)
        root = _root(function)
        if isinstance(root, ast.Name) and root.id in EXTERNAL_MODULES and not any(
                dotted == p or dotted.startswith(p + ".") for p in PURE_OF_EXTERNAL):
            return f"calls {dotted}()"
        if function.attr in EXTERNAL:
            return f"calls .{function.attr}(), which acts outside the process's objects"
    return None


@dataclass(frozen=True)
class Target:
    """Where an entry's mutant is wrapped: the file, the classes and the function (``("Engine", "forward")``).
    A target with ``watch`` backs up the entry's expression target (the key watched): its calls are
    compared only once that expression has differed (or could not be checked) in the process."""

    mutant: CodeMutant
    chain: tuple[str, ...]
    watch: str = ""

    @property
    def key(self) -> str:
        """The name its records go by: the mutant's digest, or ``digest/function`` for a backup."""
        return f"{self.mutant.digest}/function" if self.watch else self.mutant.digest


@dataclass
class Outcome:
    """What the shadow run found of one entry (by mutant digest)."""

    status: str  # "same" | "differs" | "fallback"
    detail: str
    calls: int = 0


@dataclass
class ShadowRun:
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    gates: tuple[str, ...] = ()
    disturbed: dict[str, str] = field(default_factory=dict)  # gate -> why its shadow result is not the baseline's
    seconds: float = 0.0


def _find(tree: ast.Module, parts: Sequence[str]) -> tuple[tuple[str, ...], ast.FunctionDef] | str:
    """The def to wrap for a mutant in ``parts`` (its dotted function): the first function along the
    path of classes (a nested function is wrapped with its outer one), or why there is none."""
    scope: list[ast.stmt] = list(tree.body)
    chain: list[str] = []
    for part in parts:
        found = [n for n in scope if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.name == part]
        if len(found) != 1:
            return f"{'.'.join((*chain, part))} is defined {len(found)} times at its level"
        node = found[0]
        chain.append(part)
        if isinstance(node, ast.ClassDef):
            scope = list(node.body)
            continue
        if isinstance(node, ast.AsyncFunctionDef):
            return "a coroutine"
        return tuple(chain), node
    return "in a class body, not in a function"


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node


def _own_body(node: ast.AST) -> list[ast.AST]:
    """The nodes of a function without those of the functions, lambdas and classes defined in it."""
    found: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        found.append(child)
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(child))
    return found


def outside_effect(function: ast.FunctionDef, tree: ast.Module) -> str | None:
    """Why the function may change state outside its arguments (None: its AST shows no such effect)."""
    if function.decorator_list:
        return "decorated"
    if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for n in _own_body(function)):
        return "a generator"
    local: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = node.args
            local.update(a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs))
            local.update(a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None)
            if not isinstance(node, ast.Lambda):
                local.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            local.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            local.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            local.update((a.asname or a.name).split(".")[0] for a in node.names)
    for node in ast.walk(function):
        if isinstance(node, ast.Global):
            return f"declares global {', '.join(node.names)}"
        targets: list[ast.expr] = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for part in ast.walk(target):
                if isinstance(part, (ast.Attribute, ast.Subscript)):
                    root = _root(part)
                    if not isinstance(root, ast.Name) or root.id not in local:
                        shown = root.id if isinstance(root, ast.Name) else ast.unparse(root)
                        return f"stores into {shown}, which is not its own (line {getattr(node, 'lineno', '?')})"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING:
            root = _root(node.func.value)
            if isinstance(root, ast.Name) and root.id not in local:
                return f"calls {ast.unparse(node.func)}() on a name that is not its own (line {node.lineno})"
        if isinstance(node, ast.Call):
            why = _external(node)
            if why is not None:
                return f"{why} (line {node.lineno})"
    return None


def _function_target(mutant: CodeMutant, tree: ast.Module | str, watch: str = "") -> Target | str:
    """The function target of ``mutant`` in its parsed module, or why it has none."""
    if isinstance(tree, str):
        return tree
    if mutant.function == "<module>":
        return "at module level, not in a function"
    found = _find(tree, mutant.function.split("."))
    if isinstance(found, str):
        return found
    chain, node = found
    why = outside_effect(node, tree)
    if why is not None:
        return f"{'.'.join(chain)}: {why}"
    return Target(mutant, chain, watch)


def plan(mutants: Sequence[CodeMutant], read: Callable[[str], str],
         expressions: bool = True) -> tuple[list[Any], dict[str, str]]:
    """Which mutants the shadow can check (their targets) and why the others cannot (digest -> why).
    A mutant is compared at its expression (``vtgate.mutate.shadowexpr``) where it can be; else its
    function is wrapped (``Target``). An expression target in a function at module level gets that
    function as a backup (``Target.watch``): a value that differs at the expression (a promoted
    buffer a later cast rounds back) may still give the same results at the function's end. Methods
    get no backup: their first argument is the object, whose deep copy on every call would cost more
    than the entry's own run of its gates."""
    targets: list[Any] = []
    refused: dict[str, str] = {}
    trees: dict[str, ast.Module | str] = {}

    def tree_of(path: str) -> ast.Module | str:
        if path not in trees:
            try:
                trees[path] = ast.parse(read(path))
            except (OSError, SyntaxError, ValueError) as error:
                trees[path] = f"{path} cannot be read: {error}"
        return trees[path]

    for mutant in mutants:
        try:
            found_expression = shadowexpr.target(mutant, read(mutant.path)) if expressions else "not asked for"
        except (OSError, SyntaxError, ValueError) as error:
            found_expression = f"{mutant.path} cannot be read: {error}"
        if not isinstance(found_expression, str):
            targets.append(found_expression)
            if "." not in mutant.function:
                backup = _function_target(mutant, tree_of(mutant.path), watch=mutant.digest)
                if isinstance(backup, Target):
                    targets.append(backup)
            continue
        found = _function_target(mutant, tree_of(mutant.path))
        if isinstance(found, Target):
            targets.append(found)
        elif expressions:
            refused[mutant.digest] = f"{found}; its expression cannot be compared either ({found_expression})"
        else:
            refused[mutant.digest] = found
    return targets, refused


def _renamed(lines: list[str], node: ast.FunctionDef, new: str) -> list[str]:
    block = lines[node.lineno - 1 : node.end_lineno]
    first = re.sub(rf"^(\s*def\s+){re.escape(node.name)}(\s*\()", rf"\g<1>{new}\g<2>", block[0], count=1)
    if first == block[0]:
        raise ValueError(f"cannot rename def {node.name} at line {node.lineno}")
    return [first, *block[1:]]


def rewrite(text: str, targets: Sequence[Target], folder: Path) -> str:
    """The shadow version of one module: each target function wrapped, its mutants beside it."""
    return _with_runtime(rewrite_functions(text, text, targets), folder)


def rewrite_functions(text: str, source: str, targets: Sequence[Target]) -> str:
    """``text`` (``source``, perhaps with expression targets rewritten in place, line for line) with
    each target function renamed and wrapped, its mutants (made from ``source``) beside it."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    by_def: dict[tuple[str, ...], list[Target]] = {}
    for target in targets:
        by_def.setdefault(target.chain, []).append(target)
    edits: list[tuple[int, int, list[str]]] = []
    for chain, group in by_def.items():
        found = _find(tree, chain)
        assert not isinstance(found, str), found
        _, node = found
        end = node.end_lineno or node.lineno
        tail = lines[end - 1][node.end_col_offset or 0:]
        if tail.strip() and not tail.strip().startswith("#"):
            raise ValueError(f"{'.'.join(chain)}: code after the def on line {end}")
        indent = re.match(r"\s*", lines[node.lineno - 1]).group(0)  # type: ignore[union-attr]
        name = node.name
        block = _renamed(lines, node, f"{PREFIX}o_{name}")
        references = []
        for index, target in enumerate(group):
            mutated = ast.parse(mutated_text(source, target.mutant.diff))
            other = _find(mutated, chain)
            if isinstance(other, str):
                raise ValueError(f"{target.mutant.ident}: the mutated module has no {'.'.join(chain)} ({other})")
            mutated_lines = mutated_text(source, target.mutant.diff).splitlines(keepends=True)
            if mutated_lines and not mutated_lines[-1].endswith("\n"):
                mutated_lines[-1] += "\n"
            block += _renamed(mutated_lines, other[1], f"{PREFIX}m{index}_{name}")
            references.append(f"{PREFIX}m{index}_{name}")
        keys = tuple(t.key for t in group)
        watches = tuple(t.watch for t in group)
        owner = ".".join(chain[:-1])

        def ref(local: str, owner: str = owner) -> str:
            return f"{owner}.__dict__[{local!r}]" if owner else local

        mutants = "".join(f"{ref(r)}, " for r in references)
        block += [
            f"{indent}def {name}(*args, **kwargs):  # vtgate mutate: the shadow run's wrapper\n",
            f"{indent}    return {PREFIX}call({keys!r}, {ref(PREFIX + 'o_' + name)}, ({mutants}), args, kwargs, {watches!r})\n",
            f"{indent}{PREFIX}wraps({name}, {PREFIX}o_{name}, {name!r})\n",
        ]
        edits.append((node.lineno, end, block))
    for start, end, block in sorted(edits, reverse=True):
        lines[start - 1 : end] = block
    return "".join(lines)


def _with_runtime(text: str, folder: Path) -> str:
    """``text`` with the shadow runtime's preamble after its docstring and ``__future__`` imports."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    first = next((n for n in tree.body if not (isinstance(n, ast.ImportFrom) and n.module == "__future__")
                  and not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
                           and isinstance(n.value.value, str) and n is tree.body[0])), None)
    at = (first.lineno - 1) if first is not None else len(lines)
    if first is not None and getattr(first, "decorator_list", None):
        at = first.decorator_list[0].lineno - 1  # type: ignore[attr-defined]
    preamble = [
        f"{PREFIX}ns = {{}}  # vtgate mutate: the shadow run's runtime, read from vtgate by its path\n",
        f"exec(compile(open({str(RUNTIME)!r}, encoding='utf-8').read(), {str(RUNTIME)!r}, 'exec'), {PREFIX}ns)\n",
        f"{PREFIX}call = {PREFIX}ns['Shadow']({str(folder)!r})\n",
        f"{PREFIX}wraps = {PREFIX}ns['Shadow'].wraps\n",
        f"{PREFIX}expr = {PREFIX}call.expr\n",
    ]
    lines[at:at] = preamble
    result = "".join(lines)
    compile(result, "<shadow>", "exec", dont_inherit=True)
    return result


def build(copy: Path, targets: Sequence[Any], folder: Path) -> dict[str, str]:
    """Rewrite the files of ``copy`` for the targets; a file that cannot be rewritten is left as it is
    and its targets are returned as refused (digest -> why)."""
    refused: dict[str, str] = {}
    by_file: dict[str, list[Any]] = {}
    for target in targets:
        by_file.setdefault(target.mutant.path, []).append(target)
    for path, group in by_file.items():
        file = copy / path
        try:
            source = file.read_text(encoding="utf-8")
            expressions = [t for t in group if not isinstance(t, Target)]
            text, overlapping = shadowexpr.rewrite(source, expressions, f"{PREFIX}expr")  # line for line
            refused.update(overlapping)
            functions = [t for t in group if isinstance(t, Target) and t.watch not in overlapping]
            text = rewrite_functions(text, source, functions)
            file.write_text(_with_runtime(text, folder), encoding="utf-8")  # (compiled: a broken rewrite is refused)
        except (ValueError, SyntaxError, AssertionError) as error:
            refused.update({t.mutant.digest: f"{path} cannot be rewritten: {error}" for t in group})
    return refused


def read_records(folder: Path) -> dict[str, dict[str, object]]:
    """digest -> {"calls": lower bound on the calls compared, "differs": detail or None, "uncheckable": why or None}."""
    found: dict[str, dict[str, object]] = {}
    largest: dict[tuple[str, str], int] = {}
    for file in sorted(folder.glob("*.jsonl")):
        for line in file.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a line cut by a killed process: its call's comparison did not finish
            entry = found.setdefault(record["k"], {"calls": 0, "differs": None, "uncheckable": None})
            if record["e"] == "calls":
                key = (record["k"], record["p"])
                largest[key] = max(largest.get(key, 0), int(record["n"]))
            elif record["e"] == "differs" and entry["differs"] is None:
                entry["differs"] = record["d"]
            elif record["e"] == "uncheckable" and entry["uncheckable"] is None:
                entry["uncheckable"] = record["d"]
    for (digest, _), count in largest.items():
        found[digest]["calls"] = int(str(found[digest]["calls"])) + count
    return found


def decide(targets: Sequence[Any], refused: Mapping[str, str], records: Mapping[str, Mapping[str, object]],
           reaching: Mapping[str, Sequence[str]], disturbed: Mapping[str, str], perf: set[str]) -> dict[str, Outcome]:
    """Each mutant's shadow outcome (see the module docstring for the rules): its expression target's,
    or, where that is not "same", its backup function target's when that one is."""
    outcomes: dict[str, Outcome] = {digest: Outcome("fallback", why) for digest, why in refused.items()}
    backups: dict[str, Outcome] = {}
    for target in targets:
        digest = target.mutant.digest
        if digest in refused:
            continue
        found = _outcome(target, records.get(getattr(target, "key", digest), {}), reaching.get(digest, ()), disturbed,
                         perf)
        if isinstance(target, Target) and target.watch:
            backups[digest] = found
        else:
            outcomes[digest] = found
    for digest, backup in backups.items():
        first = outcomes.get(digest)
        if first is not None and first.status != "same" and backup.status == "same":
            outcomes[digest] = Outcome("same", f"{backup.detail}; at its expression: {first.detail}", backup.calls)
        elif first is not None and first.status != "same":
            outcomes[digest] = Outcome(first.status, f"{first.detail}; its function: {backup.detail}", first.calls)
    return outcomes


def _outcome(target: Any, record: Mapping[str, object], gates: Sequence[str], disturbed: Mapping[str, str],
             perf: set[str]) -> Outcome:
    calls = int(record.get("calls", 0) or 0)  # type: ignore[call-overload]
    if record.get("differs"):
        return Outcome("differs", f"the shadow run saw the mutant differ on a call the suite made: {record['differs']}",
                       calls)
    if record.get("uncheckable"):
        return Outcome("fallback", f"a call could not be checked: {record['uncheckable']}", calls)
    if not gates:
        return Outcome("fallback", "no gate reaches it")
    if [g for g in gates if g in perf]:
        return Outcome("fallback", f"reached by a timing gate ({', '.join(g for g in gates if g in perf)})")
    if [g for g in gates if g in disturbed]:
        bad = next(g for g in gates if g in disturbed)
        return Outcome("fallback", f"the shadow copy's {bad} is not the baseline's: {disturbed[bad]}")
    if calls == 0:
        return Outcome("fallback", "the shadow run never called its function" if isinstance(target, Target)
                       else "the shadow run never evaluated its expression")
    if isinstance(target, Target) and target.watch:
        return Outcome("same", f"its function {'.'.join(target.chain)} gave the original's results on every call "
                               f"of {len(gates)} reaching gates (at least {calls} calls: compared whole, or each "
                               "evaluation of the expression the same)", calls)
    if isinstance(target, Target):
        return Outcome("same", f"the mutant gave the original's results on every call of {len(gates)} reaching gates "
                               f"(at least {calls} calls compared)", calls)
    return Outcome("same", f"{target.mutated} gave what {target.original} gives on every evaluation in {len(gates)} "
                           f"reaching gates (at least {calls} compared)", calls)
