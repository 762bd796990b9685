"""An invariance verdict names the readable field that moved (a token, a case) before a digest that
only says some bits did; the digest is named when nothing else differs."""

from pathlib import Path

from vtgate.kinds.invariance import InvarianceKind
from vtgate.suite.records import GateSpec


def _spec() -> GateSpec:
    return GateSpec(name="inv", kind="invariance", probe=None, args={}, env={}, env_reason=None, tier="default",
                    golden=None, deliberate_red=None, timeout=30.0,
                    options={"invariant_over": {"VT_X": ["1"]}}, line=None, source=Path("vtgate.toml"))


BASE = {"tokens": [1, 2, 3], "digests": {"cases": "aaaa"}, "cases": {"seq-0/pos-0": [5, 6]}}


def test_a_moved_case_is_named_before_the_digest_that_moved_with_it() -> None:
    moved = {"tokens": [1, 2, 3], "digests": {"cases": "bbbb"}, "cases": {"seq-0/pos-0": [5, 7]}}
    verdict = InvarianceKind().evaluate(_spec(), {}, {"baseline": BASE, "VT_X=1": moved})
    assert not verdict.passed
    assert "VT_X=1 differs from baseline: cases.seq-0/pos-0" in verdict.summary
    assert "digests" not in verdict.summary


def test_a_digest_alone_is_named_when_only_bits_moved() -> None:
    moved = {"tokens": [1, 2, 3], "digests": {"cases": "bbbb"}, "cases": {"seq-0/pos-0": [5, 6]}}
    verdict = InvarianceKind().evaluate(_spec(), {}, {"baseline": BASE, "VT_X=1": moved})
    assert not verdict.passed
    assert "VT_X=1 differs from baseline: digests.cases" in verdict.summary
