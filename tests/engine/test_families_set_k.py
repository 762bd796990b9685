"""The checks that set-k's survivors taught (benchmarks/freshbugs/set-k: 15 bugs an outside reviewer
wrote against 4f2d3bd, given the classes of sets a-j; 5 of 15 passed the suite of then). Each check
is the contract a class of bugs breaks: the documented precedence of two input files, decode over
every integer id (negative ones are ids too), source_root as the folder a PYTHONPATH names, a boolean
config key that takes only JSON true or false (never read for its truthiness), and a --json file
written anew. Each test applies the reviewer's real patch to a copy of vtengine and runs one family
in a fresh interpreter: the family must fail naming the contract; the unpatched copy holds."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Families = Callable[[str, str, "str | None"], list[str]]


@pytest.mark.parametrize("bug, family, named", [
    ("02", "refusals", "checkpoint precedence, a single file beside a stale index"),  # the index read first
    ("07", "tokenizer", "decoded 'ValueError: byte must be in range(0, 256)'"),  # no lower bound on bytes
    ("09", "provenance", "provenance: source_root is the folder the package lies in"),  # one level off
    ("12", "refusals", "refusal 'tie_word_embeddings 0': accepted"),  # bool(value) for a type check
])
def test_a_set_k_survivor_fails_its_family(family_failures: Families, bug: str, family: str, named: str) -> None:
    failures = family_failures("set-k", family, bug)
    assert any(named in failure for failure in failures), failures


@pytest.mark.parametrize("family", ["refusals", "tokenizer", "provenance"])
def test_the_unpatched_copy_holds_each_family_set_k_taught(family_failures: Families, family: str) -> None:
    assert family_failures("set-k", family, None) == []


@pytest.mark.slow
def test_set_k_14_a_json_file_appended_to_fails_the_cli_family(family_failures: Families) -> None:
    failures = family_failures("set-k", "cli", "14")
    assert any("--json PATH holds the last run's one document" in f for f in failures), failures
