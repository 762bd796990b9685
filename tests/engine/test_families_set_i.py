"""The checks that set-i's survivors taught (benchmarks/freshbugs/set-i: 15 bugs an outside reviewer
wrote against 6beafac, given the classes of sets a-h; 5 of 15 passed the suite of then). Each check
is the contract a class of bugs breaks, not the one bug: a summary count checked on an input where an
off-by-one count differs (proved on the input, not assumed), signed zeros through every path of the
sequential sum, arrays crossing the API by value in both directions, every unloadable safetensors dtype
refused as itself and never as an unreadable file, every head_dim residue through every attention
arm. Each test applies the reviewer's real patch to a copy of vtengine and runs one family in a fresh
interpreter: the family must fail naming the contract; the unpatched copy holds (the control)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Families = Callable[[str, str, "str | None"], list[str]]


@pytest.mark.parametrize("bug, family, named", [
    ("04", "rounding", "rounding: sum_sequential is the left-to-right float32 sum:"),  # -0.0 on one path
    ("06", "calls", "calls: arrays cross the API by value"),  # dequantized_tensors without .copy()
    ("08", "refusals", "refusal 'a tensor of dtype int32': a readable file called unreadable"),  # re-wrapped
    ("09", "calls", "calls: paged_attention (scalar_fma) on head_dim 1-9 ignores zero channels"),  # hd % 4 pad
])
def test_a_set_i_survivor_fails_its_family(family_failures: Families, bug: str, family: str, named: str) -> None:
    failures = family_failures("set-i", family, bug)
    assert any(named in failure for failure in failures), failures


@pytest.mark.parametrize("family", ["rounding", "calls", "refusals"])
def test_the_unpatched_copy_holds_each_family_set_i_taught(family_failures: Families, family: str) -> None:
    assert family_failures("set-i", family, None) == []


@pytest.mark.slow
def test_set_i_03_a_score_count_off_by_one_fails_the_cli_family(family_failures: Families) -> None:
    failures = family_failures("set-i", "cli", "03")
    assert any("score --ids of the model's greedy chain prints its agreement count" in f for f in failures), failures
