"""The quiet-host preflight of perf gates: read the host's state (load average per core, available
memory, competing processes by exact executable name, CPU frequency governors where readable), say
what is noisy under a ``QuietPolicy``, and wait for a quiet window. A noisy host makes a perf gate an
error, never a red or a green (docs/perf.md)."""

from __future__ import annotations

import glob
import os
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

import psutil

GOVERNOR_FILES = "/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor"
POLICY_KEYS = frozenset({"max_load_per_core", "min_available_mb", "competing", "governor", "enforce"})


@dataclass(frozen=True)
class QuietPolicy:
    """When a host is quiet enough to time on. ``None`` switches a threshold off; ``competing`` lists
    executable names (exact, as psutil's ``Process.name()`` reports them, never a pattern); ``governor``
    is required of every CPU whose governor is readable; ``enforce = False`` records the host state
    with every leg but never refuses to measure (benchmarks, blessing exact-output pins)."""

    max_load_per_core: float | None = 1.0
    min_available_mb: float | None = 256.0
    competing: tuple[str, ...] = ()
    governor: str | None = None
    enforce: bool = True

    @classmethod
    def from_options(cls, raw: Mapping[str, Any] | bool | None) -> QuietPolicy:
        """The gate's ``quiet`` table (``quiet = false``: record only); validate with ``policy_problems``."""
        if raw is None or raw is True:
            return cls()
        if raw is False:
            return cls(enforce=False)
        competing = raw.get("competing", ())
        return cls(
            max_load_per_core=raw.get("max_load_per_core", cls.max_load_per_core),
            min_available_mb=raw.get("min_available_mb", cls.min_available_mb),
            competing=tuple(competing),
            governor=raw.get("governor"),
            enforce=raw.get("enforce", True),
        )

    def to_json(self) -> dict[str, Any]:
        return {"max_load_per_core": self.max_load_per_core, "min_available_mb": self.min_available_mb,
                "competing": list(self.competing), "governor": self.governor, "enforce": self.enforce}


def policy_problems(raw: Any) -> list[str]:
    """What is wrong with a gate's ``quiet`` value (suite load time)."""
    if isinstance(raw, bool):
        return []
    if not isinstance(raw, Mapping):
        return ["quiet must be a table, e.g. quiet = { max_load_per_core = 1.0, competing = [\"cc1plus\"] }, or false"]
    problems = [f"quiet: unknown key '{key}' (known: {', '.join(sorted(POLICY_KEYS))})" for key in sorted(set(raw) - POLICY_KEYS)]
    for key in ("max_load_per_core", "min_available_mb"):
        value = raw.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
            problems.append(f"quiet.{key} must be a non-negative number")
    competing = raw.get("competing", [])
    if not (isinstance(competing, list) and all(isinstance(n, str) and n and "/" not in n and not any(c in n for c in "*?[")
                                                for n in competing)):
        problems.append('quiet.competing must list exact executable names, e.g. ["cc1plus", "rustc"] (no paths, no patterns)')
    if "governor" in raw and not isinstance(raw["governor"], str):
        problems.append('quiet.governor must be a governor name, e.g. "performance"')
    if "enforce" in raw and not isinstance(raw["enforce"], bool):
        problems.append("quiet.enforce must be true or false")
    return problems


@dataclass(frozen=True)
class HostState:
    """What the host looked like at ``at`` (seconds since the epoch)."""

    at: float
    cores: int
    load1: float
    available_mb: float
    competing: tuple[tuple[str, int], ...]  # (executable name, how many processes)
    governors: tuple[str, ...]  # distinct governors of the CPUs where readable; () where not

    @property
    def load_per_core(self) -> float:
        return self.load1 / max(1, self.cores)

    def to_json(self) -> dict[str, Any]:
        return {"at": round(self.at, 3), "cores": self.cores, "load1": round(self.load1, 2),
                "load_per_core": round(self.load_per_core, 2), "available_mb": round(self.available_mb),
                "competing": {name: count for name, count in self.competing}, "governors": list(self.governors)}

    def describe(self) -> str:
        text = f"load {self.load_per_core:.2f}/core, {self.available_mb:.0f} MB free"
        if self.competing:
            text += ", competing " + " ".join(f"{name}x{count}" for name, count in self.competing)
        if self.governors:
            text += f", governor {'/'.join(self.governors)}"
        return text


def _governors() -> tuple[str, ...]:
    found = set()
    for path in glob.glob(GOVERNOR_FILES):
        try:
            with open(path, encoding="ascii") as handle:
                found.add(handle.read().strip())
        except OSError:
            continue
    return tuple(sorted(found))


def _own_family() -> set[int]:
    """This process, its ancestors and its descendants: never competitors of the gate that asks."""
    me = psutil.Process()
    family = {me.pid}
    try:
        family.update(p.pid for p in me.parents())
        family.update(p.pid for p in me.children(recursive=True))
    except psutil.Error:
        pass
    return family


def read_host_state(competing: Collection[str] = ()) -> HostState:
    """The host now. Competing processes match by exact executable name only (``Process.name()``), so
    a name can never match the command line of the process that looks for it; zombies (which use no
    CPU) and this process's own family do not count."""
    wanted = set(competing)
    counts: dict[str, int] = {}
    if wanted:
        family = _own_family()
        for process in psutil.process_iter(["name", "status"]):
            name = process.info.get("name")
            if name in wanted and process.pid not in family and process.info.get("status") != psutil.STATUS_ZOMBIE:
                counts[name] = counts.get(name, 0) + 1
    return HostState(
        at=time.time(), cores=os.cpu_count() or 1, load1=os.getloadavg()[0],
        available_mb=psutil.virtual_memory().available / 2**20,
        competing=tuple(sorted(counts.items())), governors=_governors(),
    )


def noise(state: HostState, policy: QuietPolicy) -> list[str]:
    """Each way ``state`` is too noisy to time on, as a phrase naming the measure and its limit."""
    found = []
    if policy.max_load_per_core is not None and state.load_per_core > policy.max_load_per_core:
        found.append(f"load average {state.load1:.2f} on {state.cores} cores = {state.load_per_core:.2f}/core "
                     f"> {policy.max_load_per_core:g}")
    if policy.min_available_mb is not None and state.available_mb < policy.min_available_mb:
        found.append(f"available memory {state.available_mb:.0f} MB < {policy.min_available_mb:g} MB")
    for name, count in state.competing:
        found.append(f"competing process {name} running ({count})")
    if policy.governor and state.governors and set(state.governors) != {policy.governor}:
        found.append(f"CPU frequency governor {'/'.join(state.governors)}, not {policy.governor}")
    return found


@dataclass(frozen=True)
class Preflight:
    """One preflight: the last state read, what was noisy in it (empty: quiet) and how long it waited."""

    state: HostState
    noisy: tuple[str, ...]
    waited: float

    def to_json(self) -> dict[str, Any]:
        return {**self.state.to_json(), "noisy": list(self.noisy), "waited": round(self.waited, 2)}


def preflight(policy: QuietPolicy, wait_seconds: float = 0.0, *, poll_seconds: float = 1.0,
              read: Callable[[], HostState] | None = None, sleep: Callable[[float], None] = time.sleep,
              clock: Callable[[], float] = time.monotonic) -> Preflight:
    """Read the host; while it is noisy and ``wait_seconds`` allow, wait ``poll_seconds`` (the last wait
    only what remains) and read again: a host that never gets quiet is given up on after the whole
    ``wait_seconds``. Under a policy that does not enforce, the state is recorded and nothing is noisy."""
    read = read or (lambda: read_host_state(policy.competing))
    started = clock()
    while True:
        state = read()
        found = noise(state, policy) if policy.enforce else []
        waited = clock() - started
        if not found or waited >= wait_seconds:
            return Preflight(state, tuple(found), waited)
        sleep(min(poll_seconds, wait_seconds - waited))
