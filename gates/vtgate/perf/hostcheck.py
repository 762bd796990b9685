"""The quiet-host preflight of perf gates: read the host's state (the CPU time other processes used
over a short window, available memory, competing processes by exact executable name, CPU frequency
governors where readable), say what is noisy under a ``QuietPolicy``, and wait for a quiet window. A
noisy host makes a perf gate an error, never a red or a green (docs/perf.md).

"Other processes" are every process but the gate's own tree: the process that asks (the leg runner)
with all its descendants (its warm leg processes, fork servers and their zygote, whatever sessions
they started: a new session does not change a process's parent) and its ancestors (``vtgate check``
that started it; their own CPU only, never their other children). The CPU they used is measured as
per-process CPU-time deltas (psutil, user + system) between two readings, not as the 1-minute load
average, which lags by a minute and counts the gate's own legs."""

from __future__ import annotations

import contextlib
import glob
import os
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any

import psutil

GOVERNOR_FILES = "/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor"
POLICY_KEYS = frozenset({"max_other_cpu_per_core", "max_load_per_core", "min_available_mb", "competing", "governor",
                         "enforce"})
OLD_LOAD_KEY = "max_load_per_core"  # before issue 28: the 1-minute load average per core; now read as the new key
WINDOW_SECONDS = 0.25  # the shortest window the CPU of other processes is measured over
MAX_AGE_SECONDS = 5.0  # an older reading is not reused as the start of a window (it would dilute a new burst)
NAMED_SHARE = 0.05  # a process outside the gate's tree is named (when noisy) from 5% of a core up
NAMED_MAX = 5  # the busiest this many are named, with how many more there were
CMDLINE_CHARS = 60  # a named process's command line is shortened to this; its name never is


@dataclass(frozen=True)
class QuietPolicy:
    """When a host is quiet enough to time on. ``None`` switches a threshold off; ``max_other_cpu_per_core``
    is the CPU that processes outside the gate's own tree may use, in cores per core (0.25 on 2 cores:
    half a core); ``competing`` lists executable names (exact, as psutil's ``Process.name()`` reports
    them, never a pattern); ``governor`` is required of every CPU whose governor is readable;
    ``enforce = False`` records the host state with every leg but never refuses to measure
    (benchmarks, blessing exact-output pins)."""

    max_other_cpu_per_core: float | None = 0.25
    min_available_mb: float | None = 256.0
    competing: tuple[str, ...] = ()
    governor: str | None = None
    enforce: bool = True

    @classmethod
    def from_options(cls, raw: Mapping[str, Any] | bool | None) -> QuietPolicy:
        """The gate's ``quiet`` table (``quiet = false``: record only); validate with ``policy_problems``.
        The old ``max_load_per_core`` is read as ``max_other_cpu_per_core`` (same unit: cores' worth of
        work per core; docs/perf.md)."""
        if raw is None or raw is True:
            return cls()
        if raw is False:
            return cls(enforce=False)
        competing = raw.get("competing", ())
        return cls(
            max_other_cpu_per_core=raw.get("max_other_cpu_per_core", raw.get(OLD_LOAD_KEY, cls.max_other_cpu_per_core)),
            min_available_mb=raw.get("min_available_mb", cls.min_available_mb),
            competing=tuple(competing),
            governor=raw.get("governor"),
            enforce=raw.get("enforce", True),
        )

    def to_json(self) -> dict[str, Any]:
        return {"max_other_cpu_per_core": self.max_other_cpu_per_core, "min_available_mb": self.min_available_mb,
                "competing": list(self.competing), "governor": self.governor, "enforce": self.enforce}


def policy_problems(raw: Any) -> list[str]:
    """What is wrong with a gate's ``quiet`` value (suite load time)."""
    if isinstance(raw, bool):
        return []
    if not isinstance(raw, Mapping):
        return ["quiet must be a table, e.g. quiet = { max_other_cpu_per_core = 0.25, competing = [\"cc1plus\"] }, "
                "or false"]
    problems = [f"quiet: unknown key '{key}' (known: {', '.join(sorted(POLICY_KEYS))})" for key in sorted(set(raw) - POLICY_KEYS)]
    for key in ("max_other_cpu_per_core", OLD_LOAD_KEY, "min_available_mb"):
        value = raw.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
            problems.append(f"quiet.{key} must be a non-negative number")
    if "max_other_cpu_per_core" in raw and OLD_LOAD_KEY in raw:
        problems.append(f"quiet: give max_other_cpu_per_core only ({OLD_LOAD_KEY} is its old name, read as it; "
                        "docs/perf.md)")
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
class OtherProcess:
    """A process outside the gate's tree that used CPU in the window: ``cpu`` in cores (1.0: a whole
    core for the whole window). ``cmdline`` is read for those that may be named (from ``NAMED_SHARE``; "" otherwise)."""

    pid: int
    name: str
    cpu: float
    cmdline: str = ""

    def describe(self) -> str:
        text = f"pid {self.pid} {self.name}"
        command = self.cmdline if len(self.cmdline) <= CMDLINE_CHARS else self.cmdline[:CMDLINE_CHARS - 3] + "..."
        if command and command != self.name:
            text += f" ({command})"
        return text + f" {self.cpu:.0%} of a core"

    def to_json(self) -> dict[str, Any]:
        return {"pid": self.pid, "name": self.name, "cpu": round(self.cpu, 3)}


@dataclass(frozen=True)
class HostState:
    """What the host looked like at ``at`` (seconds since the epoch). ``others``: the processes outside
    the gate's tree that used CPU over the last ``window`` seconds, busiest first; ``own``: how many
    processes the gate's tree (its root and descendants) had; ``load1`` is recorded, never judged."""

    at: float
    cores: int
    load1: float
    available_mb: float
    competing: tuple[tuple[str, int], ...]  # (executable name, how many processes)
    governors: tuple[str, ...]  # distinct governors of the CPUs where readable; () where not
    others: tuple[OtherProcess, ...] = ()
    window: float = 0.0
    own: int = 0

    @property
    def load_per_core(self) -> float:
        return self.load1 / max(1, self.cores)

    @property
    def other_cpu_per_core(self) -> float:
        return sum(process.cpu for process in self.others) / max(1, self.cores)

    def to_json(self) -> dict[str, Any]:
        return {"at": round(self.at, 3), "cores": self.cores, "other_cpu_per_core": round(self.other_cpu_per_core, 3),
                "window": round(self.window, 3), "own_processes": self.own,
                "others": [process.to_json() for process in self.others[:NAMED_MAX]],
                "load1": round(self.load1, 2), "load_per_core": round(self.load_per_core, 2),
                "available_mb": round(self.available_mb),
                "competing": {name: count for name, count in self.competing}, "governors": list(self.governors)}

    def describe(self) -> str:
        text = f"other processes {self.other_cpu_per_core:.2f} CPU/core, {self.available_mb:.0f} MB free"
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


@dataclass(frozen=True)
class Seen:
    """One process in a reading."""

    name: str
    cpu: float  # CPU seconds (user + system) so far
    ppid: int
    zombie: bool


Snapshot = dict[tuple[int, float], Seen]  # (pid, create time) -> what was read of it


def _snapshot() -> tuple[float, float, Snapshot]:
    """(monotonic, epoch, every process as read in one pass over /proc); processes that cannot be read
    (gone, another user's where denied) are left out."""
    taken: Snapshot = {}
    for process in psutil.process_iter(["name", "cpu_times", "create_time", "ppid", "status"]):
        info = process.info
        times, created, ppid = info.get("cpu_times"), info.get("create_time"), info.get("ppid")
        if times is None or created is None or ppid is None:
            continue
        taken[(process.pid, created)] = Seen(info.get("name") or "?", times.user + times.system, ppid,
                                             info.get("status") == psutil.STATUS_ZOMBIE)
    return time.monotonic(), time.time(), taken


def _descendants(children: Mapping[int, list[int]], roots: Collection[int]) -> set[int]:
    found = set(roots)
    todo = list(found)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def own_tree(snapshot: Snapshot, root: int | None = None, peers: Collection[int] = ()) -> tuple[set[int], set[int]]:
    """The gate's own processes in ``snapshot``: (``root``, default this process, with all its
    descendants; those plus this process and its ancestors, whose own CPU is the gate's too, never
    their other children's, plus the trees of ``peers``, other perf leg runners whose legs never time
    at once with ours). A new session does not change a process's parent, so it stays in."""
    me = os.getpid()
    children: dict[int, list[int]] = {}
    for (pid, _), seen in snapshot.items():
        children.setdefault(seen.ppid, []).append(pid)
    tree = _descendants(children, {me if root is None else root})
    family = tree | {me} | _descendants(children, peers)
    with contextlib.suppress(psutil.Error):
        family.update(p.pid for p in psutil.Process(me).parents())
    return tree, family


def _cmdline(pid: int) -> str:
    try:
        return " ".join(" ".join(arg.split()) for arg in psutil.Process(pid).cmdline())
    except psutil.Error:
        return ""


class CpuSampler:
    """Reads the host, measuring the CPU other processes used since the previous reading (the window),
    at least ``window`` seconds long: a reading younger than that is waited out, one older than
    ``max_age`` (or ``forget``-ed) is replaced by a fresh one first. ``root`` is the gate's own tree
    (default: the process that reads); ``peers`` says which other processes' trees are not noise either
    (the other perf leg runners, ``vtgate.perf.legs.peer_runners``)."""

    def __init__(self, root: int | None = None, *, window: float = WINDOW_SECONDS, max_age: float = MAX_AGE_SECONDS,
                 sleep: Callable[[float], None] = time.sleep, peers: Callable[[], Collection[int]] = tuple) -> None:
        self.root = root
        self.peers = peers
        self.window = window
        self.max_age = max_age
        self.sleep = sleep
        self._last: tuple[float, float, Snapshot] | None = None

    def forget(self) -> None:
        """Start the next window afresh (something ran since the last reading that must not count)."""
        self._last = None

    def read(self, competing: Collection[str] = ()) -> HostState:
        base = self._last
        if base is None or time.monotonic() - base[0] > self.max_age:
            base = _snapshot()
        remaining = self.window - (time.monotonic() - base[0])
        if remaining > 0:
            self.sleep(remaining)
        now = _snapshot()
        self._last = now
        tree, family = own_tree(now[2], self.root, self.peers())
        seconds = max(now[0] - base[0], 1e-6)
        others = []
        wanted = set(competing)
        counts: dict[str, int] = {}
        for (pid, created), seen in now[2].items():
            if pid in family:
                continue
            if seen.name in wanted and not seen.zombie:
                counts[seen.name] = counts.get(seen.name, 0) + 1
            before = base[2].get((pid, created))
            if before is None and created < base[1] - 1.0:
                continue  # there before the window but not read then: its share is unknown
            used = seen.cpu - (before.cpu if before else 0.0)
            if used > 0:
                others.append(OtherProcess(pid, seen.name, used / seconds))
        others.sort(key=lambda process: -process.cpu)
        others = [replace(p, cmdline=_cmdline(p.pid)) if p.cpu >= NAMED_SHARE else p for p in others]
        return HostState(
            at=now[1], cores=os.cpu_count() or 1, load1=os.getloadavg()[0],
            available_mb=psutil.virtual_memory().available / 2**20,
            competing=tuple(sorted(counts.items())), governors=_governors(),
            others=tuple(others), window=seconds, own=len(tree),
        )


def read_host_state(competing: Collection[str] = (), root: int | None = None, window: float = WINDOW_SECONDS) -> HostState:
    """The host over a fresh window of ``window`` seconds. Competing processes match by exact executable
    name only (``Process.name()``), so a name can never match the command line of the process that looks
    for it; zombies (which use no CPU) and the gate's own tree (``own_tree``) never count."""
    return CpuSampler(root, window=window).read(competing)


def named_others(state: HostState) -> str:
    """The busiest processes outside the gate's tree, as a phrase: pid, name, command line, share."""
    named = [process for process in state.others if process.cpu >= NAMED_SHARE][:NAMED_MAX]
    if not named:
        return "none above 5% of a core"
    text = ", ".join(process.describe() for process in named)
    more = len([process for process in state.others if process.cpu >= NAMED_SHARE]) - len(named)
    return text + (f" and {more} more" if more > 0 else "")


def noise(state: HostState, policy: QuietPolicy) -> list[str]:
    """Each way ``state`` is too noisy to time on, as a phrase naming the measure and its limit."""
    found = []
    limit = policy.max_other_cpu_per_core
    if limit is not None and state.other_cpu_per_core > limit:
        found.append(f"processes outside the gate used {state.other_cpu_per_core:.2f} CPU/core on {state.cores} "
                     f"cores over {state.window:.2f} s > {limit:g} (busiest: {named_others(state)})")
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
    ``wait_seconds``. Under a policy that does not enforce, the state is recorded and nothing is noisy.
    ``read`` defaults to a ``CpuSampler`` of this process's tree, so each reading after the first
    measures the CPU other processes used since the one before."""
    if read is None:
        sampler = CpuSampler()
        read = lambda: sampler.read(policy.competing)  # noqa: E731 - one reader, kept across the polls
    started = clock()
    while True:
        state = read()
        found = noise(state, policy) if policy.enforce else []
        waited = clock() - started
        if not found or waited >= wait_seconds:
            return Preflight(state, tuple(found), waited)
        sleep(min(poll_seconds, wait_seconds - waited))
