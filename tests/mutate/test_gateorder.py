"""The learned gate order of ``vtgate mutate --code`` (vtgate.mutate.gateorder): a mutant's reaching
gates run cheapest first until a gate has shown it kills, then by expected seconds per kill, with a
gate that killed a mutant of the same function first. Only the order changes, never a verdict (the
end-to-end runs in test_code_run.py judge with it)."""

from __future__ import annotations

import threading
from pathlib import Path

from vtgate.mutate.gateorder import GateOrder
from vtgate.suite.records import GateSpec


def _gate(name: str) -> GateSpec:
    return GateSpec(name=name, kind="anchor", probe=None, args={}, env={}, env_reason=None, tier="default",
                    golden=None, deliberate_red=None, timeout=60.0, options={}, line=None, source=Path("g.toml"))


CHEAP, MIDDLE, DEAR = _gate("cheap"), _gate("middle"), _gate("dear")
SECONDS = {"cheap": 0.5, "middle": 2.0, "dear": 8.0}


def _names(order: GateOrder, function: str = "f") -> list[str]:
    return [s.name for s in order.arrange("pkg/mod.py", function, [CHEAP, MIDDLE, DEAR])]


def test_before_anything_is_learned_the_cheapest_gate_goes_first() -> None:
    assert _names(GateOrder(SECONDS)) == ["cheap", "middle", "dear"]


def test_a_gate_that_kills_moves_ahead_of_cheaper_gates_that_do_not() -> None:
    """Expected seconds per kill, with P(kill) = (kills + 1) / (runs + 2): after 6 mutants (of other
    functions) that only ``dear`` killed, cheap costs 0.5 / (1/8) = 4 s per kill, dear 8 / (7/8) = 9.1 s,
    middle 2 / (1/8) = 16 s; after 20, cheap 0.5 / (1/22) = 11 s and dear 8 / (21/22) = 8.4 s."""
    order = GateOrder(SECONDS)
    functions = [f"other{i}" for i in range(20)]
    for function in functions[:6]:
        order.learn("pkg/mod.py", function, ["cheap", "middle", "dear"], "dear")
    assert _names(order) == ["cheap", "dear", "middle"]
    for function in functions[6:]:
        order.learn("pkg/mod.py", function, ["cheap", "middle", "dear"], "dear")
    assert _names(order) == ["dear", "cheap", "middle"]


def test_a_gate_that_killed_a_mutant_of_the_same_function_goes_first() -> None:
    order = GateOrder(SECONDS)
    order.learn("pkg/mod.py", "f", ["cheap", "middle"], "middle")
    assert _names(order, "f") == ["middle", "cheap", "dear"]
    assert _names(order, "g") == ["cheap", "middle", "dear"]  # one kill elsewhere: 2 / (2/3) = 3 s > 0.5 / (1/3)
    order.learn("pkg/mod.py", "g", ["cheap", "middle", "dear"], None)  # a survivor teaches that nothing killed
    assert _names(order, "g") == ["cheap", "middle", "dear"]


def test_threads_may_ask_and_tell_at_once() -> None:
    order = GateOrder(SECONDS)

    def work(function: str) -> None:
        for _ in range(200):
            order.learn("pkg/mod.py", function, ["cheap", "dear"], "dear")
            assert sorted(_names(order, function)) == ["cheap", "dear", "middle"]

    threads = [threading.Thread(target=work, args=(f"f{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert order.overall["dear"].kills == 800 and order.overall["cheap"].runs == 800
