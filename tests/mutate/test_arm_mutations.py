"""One "this arm is the default" mutation per opt-in arm of the registry: at least one gate must go
red, unless the registry measured the arm bit-identical with the default on this host (an arm whose
order the host chooses, e.g. a BLAS that adds sequentially): then no gate can tell, nothing is expected."""

from __future__ import annotations

from vtgate.mutate.execute import arm_mutations, judge_mutation
from vtgate.mutate.spec import ArmsSource
from vtgate.suite.records import ProbeRef

SOURCE = ArmsSource("engine-arms", ProbeRef(callable="fake:arms"), "1", 1)
REGISTRY = [
    {"kernel": "gemv", "name": "default", "knob": None, "default": True},
    {"kernel": "gemv", "name": "pair", "knob": "K_PAIR", "default": False},
    {"kernel": "gemv", "name": "blas", "knob": "K_BLAS", "default": False, "host_dependent": True,
     "differs_here": True},
]


def test_every_opt_in_arm_must_turn_a_gate_red_where_it_differs_or_says_nothing() -> None:
    mutations = {m.name: m for m in arm_mutations(SOURCE, REGISTRY)}
    assert set(mutations) == {"arm-default:gemv.pair", "arm-default:gemv.blas"}
    assert all(m.expected == {"*": "red"} for m in mutations.values())
    assert mutations["arm-default:gemv.blas"].env == {"K_BLAS": "1"}
    unkilled = judge_mutation(mutations["arm-default:gemv.blas"], {}, {}, 0.0)
    assert not unkilled.met and unkilled.unmet == ("expected at least one gate red; every gate survived",)


def test_an_arm_measured_identical_here_expects_nothing_and_says_why() -> None:
    registry = [*REGISTRY[:2], {**REGISTRY[2], "differs_here": False}]
    blas = next(m for m in arm_mutations(SOURCE, registry) if m.name == "arm-default:gemv.blas")
    assert blas.expected == {}
    assert blas.description == ("K_BLAS=1: the opt-in arm as the default; the registry measured it bit-identical "
                                "with the default on this host, so no gate can tell them apart here and nothing "
                                "is expected")
    judged = judge_mutation(blas, {}, {}, 0.0)
    assert judged.met and judged.unmet == ()
