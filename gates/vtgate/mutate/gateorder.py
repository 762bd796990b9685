"""Which reaching gate a code mutant is judged by first, learned while the run goes on.

A killed mutant costs the gates run before the one that kills it, so the order matters: the cheapest
gate first is right only while every gate is as likely to kill. ``GateOrder`` keeps, for this run,
how often each gate was run on a mutant and how often it killed one, overall and per function, and
orders a mutant's reaching gates by expected seconds per kill (``seconds / P(kill)``, the rule that
minimises the expected cost of a sequence of independent tests). A gate that killed a mutant of the
same function goes first: mutants of one function tend to be seen by the same contract. Before anything
is learned, every gate has the same prior chance and the order is the cheapest first.

Only the order changes: a mutant is killed by whichever reaching gate goes red, every reaching gate
runs for one that none kills, and no verdict depends on what the order learned."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from vtgate.suite.records import GateSpec


@dataclass
class _Tally:
    runs: int = 0
    kills: int = 0

    def chance(self) -> float:
        """P(kill) with a uniform prior (Laplace's rule): 1/2 before any run."""
        return (self.kills + 1) / (self.runs + 2)


@dataclass
class GateOrder:
    """The learned order (thread-safe: the mutant threads ask and tell at once)."""

    seconds: Mapping[str, float]  # each gate's baseline run time
    overall: dict[str, _Tally] = field(default_factory=dict)
    by_function: dict[tuple[str, str], dict[str, _Tally]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def arrange(self, path: str, function: str, reaching: Sequence[GateSpec]) -> list[GateSpec]:
        """``reaching`` in the order to run them for a mutant of ``function`` in ``path``."""
        with self.lock:
            local = self.by_function.get((path, function), {})
            index = {spec.name: i for i, spec in enumerate(reaching)}

            def key(spec: GateSpec) -> tuple[int, float, int]:
                killed_here = local.get(spec.name, _Tally()).kills
                cost = max(self.seconds.get(spec.name, 0.0), 1e-3) / self.overall.get(spec.name, _Tally()).chance()
                return (-killed_here, cost, index[spec.name])

            return sorted(reaching, key=key)

    def learn(self, path: str, function: str, ran: Sequence[str], killed_by: str | None) -> None:
        """What judging one mutant showed: the gates ``ran`` in order, the last of them ``killed_by``
        (None: none killed it)."""
        with self.lock:
            local = self.by_function.setdefault((path, function), {})
            for name in ran:
                for table in (self.overall, local):
                    tally = table.setdefault(name, _Tally())
                    tally.runs += 1
                    tally.kills += name == killed_by
