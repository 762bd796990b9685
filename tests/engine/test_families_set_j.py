"""The checks that set-j's survivors taught (benchmarks/freshbugs/set-j: 15 bugs an outside reviewer
wrote against 7032b31, given the classes of sets a-i). Each check is the contract a class of bugs
breaks, not the one bug: every explicit size a limit (0 included), every save leaving only its
checkpoint and making its parents, any iterable where the signature says Iterable, exact ties broken
the same way on every decoding path, dtypes mixed in one file, the documented hash formula computed
independently on names whose orders disagree, sums long enough to reach numpy's pairwise blocks, an
error's advice checked by taking it, and a measurement whose baseline is independent of the setting
under test. Each test applies the reviewer's real patch to a copy of vtengine and runs one family in
a fresh interpreter: the family must fail naming the contract; the unpatched copy holds."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Families = Callable[[str, str, "str | None"], list[str]]


@pytest.mark.parametrize("bug, family, named", [
    ("02", "parameters", "parameters: max_tokens=0: a limit: no"),  # `max_tokens or default`
    ("03", "calls", "calls: ties: speculative equals greedy: no"),  # a stable argsort's last on ties
    ("04", "checkpoint", "(mixed, "),  # the raw-bytes path decoding bf16 norms as float32
    ("05", "parameters", "parameters: saves leave nothing beside the checkpoint (found ["),  # .old folders
    ("06", "parameters", "parameters: a save into a path whose parents do not exist makes them: no"),
    ("07", "environment", "environment: unset over a generator: unset inside, restored after: no"),
    ("08", "provenance", "provenance: the hash is the documented formula"),  # sorted by Path, not by str
    ("15", "rounding", "rounding: sum_sequential is the left-to-right float32 sum:"),  # F order to add.reduce
])
def test_a_set_j_survivor_fails_its_family(family_failures: Families, bug: str, family: str, named: str) -> None:
    failures = family_failures("set-j", family, bug)
    assert any(named in failure for failure in failures), failures


@pytest.mark.parametrize("family", ["parameters", "calls", "checkpoint", "environment", "provenance", "rounding"])
def test_the_unpatched_copy_holds_each_family_set_j_taught(family_failures: Families, family: str) -> None:
    assert family_failures("set-j", family, None) == []


@pytest.mark.slow
def test_set_j_09_a_baseline_that_takes_the_arm_under_test_fails_armcheck(family_failures: Families) -> None:
    # bf16_dot is the engine's own emulation (no host choice), so it differs from the default everywhere
    failures = family_failures("set-j", "armcheck", "09")
    assert any("differs_here(gemv/bf16_dot) is True, and False with VT_CPU_GEMV_BF16_DOT=1" in f for f in failures), \
        failures
    assert family_failures("set-j", "armcheck", None) == []


@pytest.mark.slow
def test_set_j_12_advice_off_by_one_fails_the_cli_family(family_failures: Families) -> None:
    failures = family_failures("set-j", "cli", "12")
    assert any("bench's advice past the context: at most --tokens" in f for f in failures), failures
