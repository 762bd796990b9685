"""The shadow run (vtgate.mutate.shadow): a ledger entry's mutant runs beside the original on every call
the suite makes, and only a mutant that gave the original's results on all of them, in a function whose
AST shows no effect outside its arguments, is spared its own run of the gates (``--shadow``, opt-in).

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


def test_plan_refuses_functions_with_effects_outside_their_arguments() -> None:
    targets, refused = shadow.plan(
        [m for name in ("scaled", "Counter.add", "remember", "note", "counted", "fill")
         for m in mutants_of_source(MODULE, "pkg/mod.py") if m.function == name],
        lambda path: MODULE)
    planned = {t.mutant.function for t in targets}
    assert planned == {"scaled", "Counter.add", "fill"}  # self and a parameter's items are arguments
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
    targets, refused = shadow.plan([promoted, *add, *fill], lambda path: MODULE)
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
    targets, _ = shadow.plan(fill, lambda path: MODULE)
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
    targets, _ = shadow.plan([*_mutants(MODULE, "scaled"), *_mutants(MODULE, "Counter.add")][:4], lambda path: MODULE)
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
    assert run["entries"] == 3 and run["checkable"] == 2 and run["gates"] == ["strict-hi"], run

    first = by_key[boundary.ledger_key]  # the probe calls it at 0.8 only: the same results, no gate run for it
    assert first["judged_by"] == "the shadow run" and first["shadow"].startswith("same: "), first
    assert first["status"] == "equivalent" and first["ledger"]["verdict"] == "verified"
    effect = by_key[logged.ledger_key]
    assert effect["shadow"].startswith("fallback: ") and "_LOG.append() on a name that is not its own" in \
        effect["shadow"], effect
    assert effect["judged_by"] != "the shadow run" and effect["gates_run"] == ["strict-hi"]
    seen = by_key[nudged_share.ledger_key]  # no gate reads the list; the shadow compares it and says so
    assert seen["shadow"].startswith("differs: ") and "positional arguments after the call" in seen["shadow"], seen
    assert seen["gates_run"] == ["strict-hi"]  # ... and leaves the verdict to the gates and the differential check
    assert seen["status"] == "ledger-refuted" and seen["ledger"]["refuted_by"] == "the differential check", seen
    assert report["ledger_check"]["verified_by_shadow"] == 1

    # without --shadow: the same claims judged the usual way reach the same verdicts
    again = json.loads(blessed.vtgate(*[a for a in args if a != "--shadow"], "--no-cache").stdout)
    slow = {m["ledger_key"]: m for m in again["mutants"]}
    assert again["shadow"] == {}
    for mutant in (boundary,):
        assert slow[mutant.ledger_key]["status"] == "equivalent" and not slow[mutant.ledger_key]["shadow"]
        assert slow[mutant.ledger_key]["judged_by"] is None
    assert slow[nudged_share.ledger_key]["status"] == "ledger-refuted"
