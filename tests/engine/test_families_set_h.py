"""The checks that set-h's survivors taught (benchmarks/freshbugs/set-h: 15 bugs an outside reviewer
wrote against 6a2811d, given the classes of the earlier sets; 12 of 15 passed the suite of then).
Each check is written as the contract a class of bugs breaks, not as the one bug: causality for
every non-finite value and every attention arm, margins exact for every decoding call, the numerics
kernels against exact rational arithmetic at rounding midpoints, every numeric config key under every
wrong JSON type, hashing of bytes under every newline and BOM edit, containment by path components,
a cache write cut at any size. Each test applies the reviewer's real patch to a copy of vtengine and
runs one family in a fresh interpreter on it: the family must fail, naming the broken contract; on
the unpatched copy it holds (the control)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Families = Callable[[str, str, "str | None"], list[str]]


@pytest.mark.parametrize("bug, family, named", [
    ("01", "calls", "calls: score: margins are the float64 difference of its top-2 float32 logits: no"),
    ("02", "calls", "nan in V at position"),  # the masked products' copyto dropped: NaN spreads to earlier rows
    ("03", "rounding", "rounding: fma_f32 at rounding midpoints:"),  # round-to-odd's sign ignored
    ("07", "checkpoint", "save_checkpoint's safetensors metadata is {'model.safetensors': None}"),
    ("08", "refusals", "refusal 'rms_norm_eps true': accepted"),  # bool taken for a number
    ("09", "modelcache", "is not the whole cache file"),  # the cache written in place, not by os.replace
    ("10", "provenance", "provenance: CRLF line ends in a module changes it: no"),  # read_text hashes text
    ("11", "provenance", "are not of vtengin/: no"),  # containment by string prefix
    ("12", "environment", "child_env: the values win over this process's environment: no"),
    ("15", "arms", "gemv/default -> paged_attention/default"),  # arm() matches the name only
])
def test_a_set_h_survivor_fails_its_family(family_failures: Families, bug: str, family: str, named: str) -> None:
    failures = family_failures("set-h", family, bug)
    assert any(named in failure for failure in failures), failures


@pytest.mark.parametrize("family", ["calls", "rounding", "refusals", "modelcache", "provenance", "environment",
                                    "arms"])
def test_the_unpatched_copy_holds_each_family_set_h_taught(family_failures: Families, family: str) -> None:
    assert family_failures("set-h", family, None) == []


@pytest.mark.slow
@pytest.mark.parametrize("bug, named", [
    ("13", "SIGTERM ignored by the parent (nohup) stays ignored: bench ends 0 (exit "),  # any other exit
    ("14", "cli bench --prompt-tokens 1024 --tokens 1, one past the edge: exit 3"),
])
def test_a_set_h_cli_survivor_fails_the_cli_family(family_failures: Families, bug: str, named: str) -> None:
    failures = family_failures("set-h", "cli", bug)
    assert any(named in failure for failure in failures), failures
