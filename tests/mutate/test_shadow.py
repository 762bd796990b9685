"""The shadow run (vtgate.mutate.shadow): a ledger entry's mutated expression is evaluated beside the
original one wherever the suite evaluates it (vtgate.mutate.shadowexpr), or else its mutated function
runs beside the original on every call; only a mutant that gave the original's results on all of them is
spared its own run of the gates (``--shadow``, the default).

The fast tests rewrite real modules (mutants from the generator, the runtime executed by its path, as a
shadow copy does) and call them; the slow ones run ``vtgate mutate --code`` on the mutfake project (a
real git repository, real subprocess probes), with planted entries the shadow must vouch for or leave
to the gates."""

from __future__ import annotations

import importlib.util
import json
import sys
import threading
from pathlib import Path

import pytest
from vtgate.mutate import shadow
from vtgate.mutate.codemutants import mutants_of_source
from vtgate.mutate.shadowrt import Shadow, Uncheckable, fingerprint

MODULE = '''"""A module to shadow."""

from __future__ import annotations

import pathlib

import numpy as np

CACHE = {}
SEEN = set()


def scaled(x, factor=2.0):
    return np.asarray(x, dtype=np.float32) * np.float32(factor)


def fill(buffer, value):
    for i in range(len(buffer)):
        buffer[i] = value + 0
    return None


class Counter:
    def __init__(self):
        self.total = 0

    def add(self, n):
        self.total = (self.total + n) + 0.5
        return self.total


def remember(key, value):
    CACHE[key] = value * 0.5
    return value


def note(key):
    SEEN.add(key * 0.5)
    return key


def counted(xs):
    yield from (x * 0.5 for x in xs)


def marked(path, n):
    flag = pathlib.Path(path)
    flag.touch()
    return n * 0.5


def shown(n):
    print(n)
    return n * 0.5
'''


def _mutants(text: str, function: str, operator: str | None = None):
    found = [m for m in mutants_of_source(text, "pkg/mod.py") if m.function == function
             and (operator is None or m.operator == operator)]
    assert found, f"the generator writes no mutant of {function}"
    return found


def _load(tmp_path: Path, text: str, name: str):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_fingerprint_tells_bits_and_aliasing_apart() -> None:
    np = pytest.importorskip("numpy")
    assert fingerprint(0.0) != fingerprint(-0.0)
    assert fingerprint(np.float32(1.0)) != fingerprint(np.float64(1.0))
    assert fingerprint(np.array([1.0], dtype=np.float32)) != fingerprint(np.array([1.0], dtype=np.float64))
    nan = np.array([np.nan], dtype=np.float32)
    assert fingerprint(nan) == fingerprint(nan.copy())
    shared = [1]
    assert fingerprint([shared, shared]) != fingerprint([[1], [1]])  # the second is not an alias
    assert fingerprint(True) != fingerprint(1)
    with pytest.raises(Uncheckable):
        fingerprint(threading.Lock())


EXPRESSIONS = '''"""Expressions to shadow."""

import numpy as np


def half(x):
    return (x * 2.0) * 0.25


def bounded(n, limit):
    total = 0
    for i in range(0, n, 4):
        total += i
    return total + (n > limit)


def shared(a):
    return np.asarray(a, np.float32)


def guarded(x):
    return 4.0 / (x - 2.5)


LEVEL = 3 * 0.5


def logged(log, x):
    log.append(x * 0.5)
    return x


def rounded(a):
    return np.asarray(a, dtype=np.float32).astype(np.float16)


def column(x):
    return (x * 0.5).astype(np.float32)[:, None]


def accumulate(xs):
    out = np.zeros(3, np.float32)
    for x in xs:
        out = out + np.asarray(x, np.float32)
    return out.astype(np.float32)
'''


def _expression_copy(tmp_path: Path, chosen, name: str):
    from vtgate.mutate import shadowexpr

    targets = [shadowexpr.target(m, EXPRESSIONS) for m in chosen]
    assert all(not isinstance(t, str) for t in targets), targets
    records = tmp_path / "records"
    records.mkdir(parents=True, exist_ok=True)
    text, refused = shadowexpr.rewrite(EXPRESSIONS, targets, "_vtshadow_expr")
    assert not refused
    return _load(tmp_path, shadow._with_runtime(text, records), name), records


def _one(function: str, description: str):
    return next(m for m in mutants_of_source(EXPRESSIONS, "pkg/expr.py") if m.function == function
                and m.description == description)


def test_an_expression_target_is_the_largest_expression_safe_to_evaluate_twice() -> None:
    from vtgate.mutate import shadowexpr

    regrouped = shadowexpr.target(_one("half", "x * 2.0 * 0.25 -> x * (2.0 * 0.25)"), EXPRESSIONS)
    assert not isinstance(regrouped, str) and regrouped.fresh and not regrouped.iterated
    assert (regrouped.original, regrouped.mutated) == ("x * 2.0 * 0.25", "x * (2.0 * 0.25)")
    shifted = shadowexpr.target(_one("bounded", "n -> n - 1"), EXPRESSIONS)
    assert not isinstance(shifted, str) and shifted.iterated and shifted.original == "range(0, n, 4)"
    inside_a_call = shadowexpr.target(_one("logged", "0.5 -> 0.5005"), EXPRESSIONS)
    assert not isinstance(inside_a_call, str) and inside_a_call.original == "x * 0.5"  # not log.append(...)
    assert shadowexpr.target(_one("<module>", "0.5 -> 0.5005"), EXPRESSIONS) == "at module level"


def test_a_keyword_argument_is_part_of_its_call() -> None:
    """``dtype=np.float32`` sits in a keyword node, which is no expression: the target climbs past it to
    the call, and on to the cast that decides the value."""
    from vtgate.mutate import shadowexpr

    promoted = shadowexpr.target(_one("rounded", "np.float32 -> np.float64"), EXPRESSIONS)
    assert not isinstance(promoted, str) and promoted.fresh
    assert promoted.original == "np.asarray(a, dtype=np.float32).astype(np.float16)"


def test_a_view_is_not_the_target_when_the_value_it_views_is_new() -> None:
    """``(...)[:, None]`` may hand out a view of something shared; the array it views is new on both
    sides, so that array is the one compared (equal values and layout: interchangeable)."""
    from vtgate.mutate import shadowexpr

    nudged = shadowexpr.target(_one("column", "0.5 -> 0.5005"), EXPRESSIONS)
    assert not isinstance(nudged, str) and nudged.fresh and nudged.original == "(x * 0.5).astype(np.float32)"


def _built(tmp_path: Path, chosen, name: str):
    """A copy of EXPRESSIONS as shadow.build writes it (expression targets and their backups), loaded."""
    targets, refused = shadow.plan(chosen, lambda path: EXPRESSIONS)
    copy, records = tmp_path / "copy", tmp_path / "records"
    (copy / "pkg").mkdir(parents=True)
    records.mkdir()
    (copy / "pkg" / "expr.py").write_text(EXPRESSIONS)
    assert shadow.build(copy, targets, records) == {}
    return targets, refused, _load(tmp_path, (copy / "pkg" / "expr.py").read_text(), name), records


def test_a_value_that_differs_at_its_expression_may_be_the_same_at_its_function(tmp_path: Path) -> None:
    """A float64 buffer instead of a float32 one differs at the expression; the function rounds its sum
    back to float32, so on small integers its results are the original's: the backup vouches for it.
    On 1e8 + 1 - 1e8 the two sums round apart (float32 loses the 1), and nothing vouches."""
    pytest.importorskip("numpy")
    buffer = _one("accumulate", "np.float32 -> np.float64")
    targets, refused, module, records = _built(tmp_path, [buffer], "backed_up")
    assert not refused and {type(t).__name__ for t in targets} == {"ExprTarget", "Target"}
    backup = next(t for t in targets if isinstance(t, shadow.Target))
    assert backup.watch == buffer.digest and backup.key == f"{buffer.digest}/function"
    assert module.accumulate([1, 2, 3]).tolist() == [6.0, 6.0, 6.0]
    found = shadow.read_records(records)
    assert "evaluation 1" in str(found[buffer.digest]["differs"])
    assert found[backup.key] == {"calls": 1, "differs": None, "uncheckable": None}
    outcome = shadow.decide(targets, refused, found, {buffer.digest: ["g"]}, {}, set())[buffer.digest]
    assert outcome.status == "same" and "its function accumulate" in outcome.detail and "at its expression" in outcome.detail
    assert module.accumulate([1e8, 1, -1e8]).tolist() == [0.0, 0.0, 0.0]  # still the original's
    found = shadow.read_records(records)
    assert "call 2: the outcome differ" in str(found[backup.key]["differs"])
    assert shadow.decide(targets, refused, found, {buffer.digest: ["g"]}, {}, set())[buffer.digest].status == "differs"


def test_a_backup_runs_its_mutant_only_once_the_expression_it_watches_has_differed(tmp_path: Path) -> None:
    records = tmp_path / "records"
    records.mkdir()
    run = Shadow(str(records))
    ran: list[int] = []

    def original(x):
        return x

    def mutant(x):
        ran.append(x)
        return -x

    for value in (1, 2):
        assert run(("k/function",), original, (mutant,), (value,), {}, ("k",)) == value
    assert ran == [] and shadow.read_records(records)["k/function"]["calls"] == 2  # vouched at the expression
    assert run.expr(("k",), lambda: 1.0, (lambda: 2.0,), (False,), False) == 1.0  # the expression differs
    assert run(("k/function",), original, (mutant,), (3,), {}, ("k",)) == 3
    assert ran == [3] and "call 3: the outcome differ" in str(shadow.read_records(records)["k/function"]["differs"])


def test_a_shadowed_expression_gives_the_original_and_records_each_mutant(tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    regrouped = _one("half", "x * 2.0 * 0.25 -> x * (2.0 * 0.25)")
    nudged = _one("half", "0.25 -> 0.25025")
    shifted = _one("bounded", "n -> n - 1")
    boundary = _one("bounded", "n > limit -> n >= limit")
    promoted = _one("shared", "np.float32 -> np.float64")
    module, records = _expression_copy(tmp_path, [regrouped, nudged, shifted, boundary, promoted], "shadowed_expr")
    assert module.half(3.0) == 1.5 and module.half(0.1) == (0.1 * 2.0) * 0.25  # the original's value
    assert module.bounded(8, 100) == 4 and module.bounded(9, 100) == 12
    assert module.shared([1.0]).dtype == np.float32
    found = shadow.read_records(records)
    assert found[regrouped.digest] == {"calls": 2, "differs": None, "uncheckable": None}
    assert "evaluation 1" in str(found[nudged.digest]["differs"])
    # range(0, 8, 4) and range(0, 7, 4) iterate alike; range(0, 9, 4) and range(0, 8, 4) do not
    assert found[shifted.digest]["calls"] == 1 and "evaluation 2: range(0, 9, 4) vs range(0, 8, 4)" in str(
        found[shifted.digest]["differs"])
    assert found[boundary.digest] == {"calls": 2, "differs": None, "uncheckable": None}  # n never equals limit
    module.bounded(100, 100)
    assert "evaluation 3" in str(shadow.read_records(records)[boundary.digest]["differs"])
    # np.asarray may hand back its argument: the same values are not enough to call them interchangeable
    assert "may share" in str(found[promoted.digest]["uncheckable"])


def test_an_expression_that_raises_only_on_one_side_differs(tmp_path: Path) -> None:
    nudged = _one("guarded", "2.5 -> 2.5000025")
    module, records = _expression_copy(tmp_path, [nudged], "shadowed_raise")
    assert module.guarded(4.5) == 2.0
    assert "evaluation 1" in str(shadow.read_records(records)[nudged.digest]["differs"])
    module, records = _expression_copy(tmp_path / "again", [nudged], "shadowed_raise_again")
    with pytest.raises(ZeroDivisionError):
        module.guarded(2.5)  # the engine still sees the original's exception
    assert "the original raised ZeroDivisionError, the mutant returned float" in str(
        shadow.read_records(records)[nudged.digest]["differs"])


def test_plan_refuses_functions_with_effects_outside_their_arguments() -> None:
    targets, refused = shadow.plan(
        [m for name in ("scaled", "Counter.add", "remember", "note", "counted", "fill")
         for m in mutants_of_source(MODULE, "pkg/mod.py") if m.function == name],
        lambda path: MODULE, expressions=False)
    planned = {t.mutant.function for t in targets}
    assert planned == {"scaled", "Counter.add", "fill"}  # self and a parameter's items are arguments
    # a file touched through a name of its own, or the console written: effects outside the arguments
    touched, printed = _mutants(MODULE, "marked"), _mutants(MODULE, "shown")
    outside, refused_outside = shadow.plan([*touched, *printed], lambda path: MODULE, expressions=False)
    assert outside == [] and len(refused_outside) == len(touched) + len(printed)
    assert all(".touch()" in refused_outside[m.digest] for m in touched)
    assert all("print()" in refused_outside[m.digest] for m in printed)
    at_expressions, _ = shadow.plan([*touched, *printed], lambda path: MODULE)
    assert at_expressions and not [t for t in at_expressions if isinstance(t, shadow.Target)]  # and no backup
    why = {m: r for m, r in refused.items()}
    reasons = " | ".join(why.values())
    assert "stores into CACHE, which is not its own" in reasons
    assert "calls SEEN.add() on a name that is not its own" in reasons
    assert "a generator" in reasons


def test_a_rewritten_module_runs_the_original_and_records_what_each_mutant_did(tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    # scaled: a float64 intermediate changes the dtype returned, recorded as a difference of the outcome
    promoted = next(m for m in _mutants(MODULE, "scaled", "dtype-promote"))
    add = _mutants(MODULE, "Counter.add")
    fill = _mutants(MODULE, "fill")
    targets, refused = shadow.plan([promoted, *add, *fill], lambda path: MODULE, expressions=False)
    assert not refused
    records = tmp_path / "records"
    records.mkdir()
    text = shadow.rewrite(MODULE, targets, records)
    assert "_vtshadow_o_scaled" in text and "_vtshadow_m0_add" in text
    module = _load(tmp_path, text, "shadowed_mod")
    # the engine goes on with the original's results
    assert module.scaled([1.5, 2.0]).dtype == np.float32
    counter = module.Counter()
    assert counter.add(3) == 3.5 and counter.add(4) == 8.0 and counter.total == 8.0
    buffer = [0, 0, 0]
    module.fill(buffer, 5)
    assert buffer == [5, 5, 5]
    assert module.scaled.__name__ == "scaled" and module.Counter.add.__qualname__ == "Counter.add"
    found = shadow.read_records(records)
    assert "outcome" in str(found[promoted.digest]["differs"]), found[promoted.digest]
    regrouped = next(m for m in add if m.operator == "reassociate")
    for mutant in add:  # a nudged 0.5 changes self.total and the result: seen on the first call
        if mutant is not regrouped:
            assert "call 1: the outcome differ" in str(found[mutant.digest]["differs"]), found.get(mutant.digest)
    # (t + n) + 0.5 and t + (n + 0.5) are the same on these integers: two calls compared, no difference
    assert found[regrouped.digest] == {"calls": 2, "differs": None, "uncheckable": None}
    assert (0.1 + 0.2) + 0.5 != 0.1 + (0.2 + 0.5)
    other = module.Counter()
    other.total = 0.1
    assert other.add(0.2) == (0.1 + 0.2) + 0.5  # the original's result, while the mutant's differs
    assert "call 3: the outcome differ" in str(shadow.read_records(records)[regrouped.digest]["differs"])
    for mutant in fill:
        entry = found.get(mutant.digest, {})
        assert entry.get("differs") or entry.get("calls"), mutant.description


def test_a_mutant_that_only_changes_an_argument_is_caught(tmp_path: Path) -> None:
    """fill returns None either way: only the buffer it leaves shows the mutant (``value + 0`` nudged
    or the loop bound shifted)."""
    fill = [m for m in _mutants(MODULE, "fill") if m.operator in ("const-nudge", "index-shift")]
    targets, _ = shadow.plan(fill, lambda path: MODULE, expressions=False)
    records = tmp_path / "records"
    records.mkdir()
    module = _load(tmp_path, shadow.rewrite(MODULE, targets, records), "shadowed_fill")
    module.fill([0, 0, 0, 0], 5)
    found = shadow.read_records(records)
    assert all("positional arguments after the call" in str(found[m.digest]["differs"]) for m in fill), found


def test_identical_mutants_count_calls_and_uncheckable_calls_are_said(tmp_path: Path) -> None:
    records = tmp_path / "records"
    records.mkdir()
    run = Shadow(str(records))

    def original(x, lock=None):
        return x * 2

    def same(x, lock=None):
        return x + x

    for value in range(5):
        assert run(("k-same",), original, (same,), (value,), {}) == 2 * value
    run(("k-lock",), original, (same,), (3,), {"lock": threading.Lock()})
    found = shadow.read_records(records)
    assert found["k-same"]["calls"] == 4 and not found["k-same"]["differs"]  # 1, 2, 4: a lower bound
    assert "cannot be deep-copied" in str(found["k-lock"]["uncheckable"])


def test_arguments_are_compared_by_values_and_results_with_their_layout(tmp_path: Path) -> None:
    """A deep copy of a strided view comes back compact (here Fortran-ordered), so the mutant's copy of
    an argument is compared with the original's by dtype, shape and elements; a returned array keeps
    its strides in the comparison (a later reduction may sum it in another order)."""
    np = pytest.importorskip("numpy")
    records = tmp_path / "records"
    records.mkdir()
    run = Shadow(str(records))
    view = np.arange(96.0).reshape(4, 3, 8).transpose(2, 1, 0)[::2]
    assert not view.flags["C_CONTIGUOUS"] and not view.flags["F_CONTIGUOUS"]

    def total(x):
        return float(x.sum())

    def regrouped(x):
        return float(x.sum()) + 0.0

    assert run(("k-view",), total, (regrouped,), (view,), {}) == float(view.sum())
    assert shadow.read_records(records)["k-view"] == {"calls": 1, "differs": None, "uncheckable": None}

    def doubled(x):
        return np.ascontiguousarray(x * 2.0)

    def doubled_fortran(x):
        return np.asfortranarray(x * 2.0)

    run(("k-layout",), doubled, (doubled_fortran,), (np.ones((2, 3)),), {})
    assert "the outcome differ" in str(shadow.read_records(records)["k-layout"]["differs"])


def test_an_exception_is_an_outcome_and_is_raised_again(tmp_path: Path) -> None:
    records = tmp_path / "records"
    records.mkdir()
    run = Shadow(str(records))

    def original(x):
        if x > 1:
            raise ValueError("too big")
        return x

    def boundary(x):
        if x >= 1:
            raise ValueError("too big")
        return x

    with pytest.raises(ValueError, match="too big"):
        run(("k",), original, (boundary,), (2,), {})
    assert not shadow.read_records(records)["k"]["differs"]
    assert run(("k",), original, (boundary,), (1,), {}) == 1
    assert "the outcome differ" in str(shadow.read_records(records)["k"]["differs"])


def test_decide_leaves_disturbed_timed_and_uncalled_entries_to_their_gates() -> None:
    targets, _ = shadow.plan([*_mutants(MODULE, "scaled"), *_mutants(MODULE, "Counter.add")][:4], lambda path: MODULE, expressions=False)
    a, b, c, d = (t.mutant.digest for t in targets)
    records = {a: {"calls": 8, "differs": None, "uncheckable": None},
               b: {"calls": 8, "differs": None, "uncheckable": None},
               c: {"calls": 8, "differs": None, "uncheckable": None}}
    reaching = {a: ["g1"], b: ["g1", "g2"], c: ["perf"], d: ["g1"]}
    outcomes = shadow.decide(targets, {}, records, reaching, {"g2": "an observation changed"}, {"perf"})
    assert outcomes[a].status == "same" and "at least 8 calls" in outcomes[a].detail
    assert outcomes[b].status == "fallback" and "g2" in outcomes[b].detail
    assert outcomes[c].status == "fallback" and "timing gate" in outcomes[c].detail
    assert outcomes[d].status == "fallback" and "never called" in outcomes[d].detail


def test_mutated_text_applies_the_generators_diff() -> None:
    for mutant in mutants_of_source(MODULE, "pkg/mod.py")[:20]:
        text = shadow.mutated_text(MODULE, mutant.diff)
        assert text != MODULE and mutant.replacement in text


# -- slow: the whole command on the mutfake project ------------------------------------------------

PLANTED = '''

_LOG = []


def _half_above_one(x: float) -> float:
    return x * 0.5 if x > 1.0 else x


def _logged(x: float) -> float:
    _LOG.append(x * 0.5)
    return x


def _share(x: float, parts: list) -> float:
    parts.append(x / 4.0)
    return x


_generate = generate


def generate(prompt: str = "hi", tokens: int = 12) -> dict:
    _half_above_one(tokens / 15)
    _logged(tokens / 15)
    _share(tokens / 15, [])
    return _generate(prompt, tokens)
'''


@pytest.mark.slow
def test_the_shadow_run_vouches_reports_and_falls_back(blessed) -> None:
    from vtgate.mutate.codemutants import generate

    source = blessed.root / "src" / "mutfake" / "__init__.py"
    source.write_text(source.read_text() + PLANTED)
    blessed.commit("planted functions for the shadow run")
    mutants = {(m.function, m.intent): m for m in generate(blessed.root, ["src/mutfake"])}
    by_function: dict[str, list] = {}
    for (function, _), mutant in mutants.items():
        by_function.setdefault(function, []).append(mutant)
    boundary = next(m for m in by_function["_half_above_one"] if m.description == "x > 1.0 -> x >= 1.0")
    logged = next(m for m in by_function["_logged"] if m.operator == "const-nudge")  # a global effect
    nudged_share = next(m for m in by_function["_share"] if m.description == "4.0 -> 4.004")  # x / 4.004: no gate reads the list
    ledger = blessed.root / "goldens" / "mutations" / "equivalent.toml"
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_text("".join(f'[[equivalent]]\ndigest = "{m.ledger_key}"\nid = "{m.ident}"\nreason = "claimed"\n\n'
                              for m in (boundary, logged, nudged_share)))
    blessed.commit("three claims")
    args = ("mutate", "--code", "--shadow", "--json", "-", "-q", "-j", "2", "-g", "strict-hi",
            "--operator", "compare-boundary", "--operator", "const-nudge")
    done = blessed.vtgate(*args)
    report = json.loads(done.stdout)
    by_key = {m["ledger_key"]: m for m in report["mutants"]}
    run = report["shadow"]
    assert run["entries"] == 3 and run["checkable"] == 3 and run["gates"] == ["strict-hi"], run

    first = by_key[boundary.ledger_key]  # the probe calls it at 0.8 only: the same results, no gate run for it
    assert first["judged_by"] == "the shadow run" and first["shadow"].startswith("same: "), first
    assert first["status"] == "equivalent" and first["ledger"]["verdict"] == "verified"
    effect = by_key[logged.ledger_key]  # compared at x * 0.5, inside the effect on a global list
    assert effect["shadow"].startswith("differs: ") and "evaluation 1" in effect["shadow"], effect
    assert effect["judged_by"] != "the shadow run" and effect["gates_run"] == ["strict-hi"]
    seen = by_key[nudged_share.ledger_key]  # no gate reads the list; the shadow compares x / 4.0 and says so
    assert seen["shadow"].startswith("differs: ") and "evaluation 1" in seen["shadow"], seen
    assert seen["gates_run"] == ["strict-hi"]  # ... and leaves the verdict to the gates and the differential check
    assert seen["status"] == "ledger-refuted" and seen["ledger"]["refuted_by"] == "the differential check", seen
    assert report["ledger_check"]["verified_by_shadow"] == 1

    # with --no-shadow: the same claims judged the usual way reach the same verdicts
    again = json.loads(blessed.vtgate(*[a if a != "--shadow" else "--no-shadow" for a in args], "--no-cache").stdout)
    slow = {m["ledger_key"]: m for m in again["mutants"]}
    assert again["shadow"] == {}
    for mutant in (boundary,):
        assert slow[mutant.ledger_key]["status"] == "equivalent" and not slow[mutant.ledger_key]["shadow"]
        assert slow[mutant.ledger_key]["judged_by"] is None
    assert slow[nudged_share.ledger_key]["status"] == "ledger-refuted"
