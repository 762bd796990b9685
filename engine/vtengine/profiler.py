"""Stage profiler (``VT_PROFILE=1``): wall time per stage (linear, attention, rope, lm_head, dequant,
norms, ...) split by phase (prefill, decode). When off the engine holds ``None`` and each call site
costs one truthiness test."""

from __future__ import annotations

import time
from collections import defaultdict

STAGES = ("linear", "attention", "rope", "lm_head", "dequant", "norms", "mlp_act", "kv_write", "embed")

clock = time.perf_counter


class Profiler:
    def __init__(self) -> None:
        self.phase = "prefill"
        self.seconds: dict[tuple[str, str], float] = defaultdict(float)
        self.calls: dict[tuple[str, str], int] = defaultdict(int)
        self.tokens: dict[str, int] = defaultdict(int)

    def add(self, stage: str, started: float) -> None:
        key = (self.phase, stage)
        self.seconds[key] += clock() - started
        self.calls[key] += 1

    def table(self) -> list[dict[str, object]]:
        """Rows: phase, stage, seconds, calls, share of the phase's profiled time."""
        totals: dict[str, float] = defaultdict(float)
        for (phase, _), seconds in self.seconds.items():
            totals[phase] += seconds
        rows = []
        for (phase, stage), seconds in sorted(self.seconds.items(), key=lambda kv: (kv[0][0], -kv[1])):
            rows.append(
                {
                    "phase": phase,
                    "stage": stage,
                    "seconds": seconds,
                    "calls": self.calls[(phase, stage)],
                    "share": seconds / totals[phase] if totals[phase] else 0.0,
                }
            )
        return rows
