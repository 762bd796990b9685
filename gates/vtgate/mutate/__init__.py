"""``vtgate mutate``: prove that every pin discriminates. Declared mutations (env, patch, pin) and
built-in negative controls are run against the suite; the kill matrix says which gate each one turns
red, whether every expectation held, and which pins are vacuous (they survive their own control, or
nothing kills them). docs/mutate.md is the user's guide."""

from __future__ import annotations

from vtgate.mutate.copies import PatchError
from vtgate.mutate.execute import ArmsError, MutateReport, MutationResult, run_mutate
from vtgate.mutate.spec import ArmsSource, Declarations, Mutation, PinOp, load_declarations

__all__ = [
    "ArmsError",
    "ArmsSource",
    "Declarations",
    "MutateReport",
    "Mutation",
    "MutationResult",
    "PatchError",
    "PinOp",
    "load_declarations",
    "run_mutate",
]
