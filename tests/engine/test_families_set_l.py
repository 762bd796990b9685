"""The checks that set-l's survivors taught (benchmarks/freshbugs/set-l: 15 bugs an outside reviewer
wrote against f78b33c, given the classes of sets a-k; 5 of 15 passed the suite of then). Each check
is the contract a class of bugs breaks: the elementwise kernels over float32's whole finite range
(a formula that overflows to NaN or inf far out), the plain rotary embedding in every spelling
transformers has written, a package imported through a symlinked PYTHONPATH, --ids as decimal
integers (zero-padded ones too), and atomic writes whose rename stays inside one folder. Each test
applies the reviewer's real patch to a copy of vtengine and runs one family in a fresh interpreter:
the family must fail naming the contract; the unpatched copy holds."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Families = Callable[[str, str, "str | None"], list[str]]


@pytest.mark.parametrize("bug, family, named", [
    ("06", "rounding", "rounding: silu_f32 over float32's finite range (finite for every finite x)"),  # x e^x/(1+e^x)
    ("09", "refusals", "checkpoint, plain RoPE as rope_scaling type default (the older key)"),  # alias not allowed
    ("10", "provenance", "provenance: imported through a symlinked PYTHONPATH"),  # one side resolved
    ("14", "modelcache", "was renamed from another folder"),  # mkstemp without dir=
])
def test_a_set_l_survivor_fails_its_family(family_failures: Families, bug: str, family: str, named: str) -> None:
    failures = family_failures("set-l", family, bug)
    assert any(named in failure for failure in failures), failures


@pytest.mark.parametrize("family", ["rounding", "refusals", "provenance", "modelcache"])
def test_the_unpatched_copy_holds_each_family_set_l_taught(family_failures: Families, family: str) -> None:
    assert family_failures("set-l", family, None) == []


@pytest.mark.slow
def test_set_l_11_ids_with_radix_detection_fail_the_cli_family(family_failures: Families) -> None:
    failures = family_failures("set-l", "cli", "11")
    assert any("score --ids 0001,002,060,07 is --ids 1,2,60,7" in f for f in failures), failures
