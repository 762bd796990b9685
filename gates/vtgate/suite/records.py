"""Frozen records that cross module lines: the parsed suite (``Suite``, ``GateSpec``), what a gate
kind asks to run (``ProbeRequest``) and what it concludes (``Verdict``). ``vtgate mutate`` and
``vtbisect`` build on these; keep them stable."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ProbeRef:
    """A probe: a Python callable ``module:function`` or a command (argv) printing observation JSON."""

    callable: str | None = None
    cmd: tuple[str, ...] | None = None
    worker: bool = False  # a persistent command answering line-delimited JSON requests (vtgate.run.workers)

    def canonical(self) -> str:
        if self.callable is not None:
            return self.callable
        if self.worker:
            return json.dumps({"cmd": list(self.cmd or ()), "worker": True})
        return json.dumps(list(self.cmd or ()))

    def __str__(self) -> str:
        if self.callable is not None:
            return self.callable
        return ("worker " if self.worker else "cmd ") + " ".join(self.cmd or ())


@dataclass(frozen=True)
class ProbeRequest:
    """One run a gate kind needs. ``label`` names it inside the gate ("baseline", "VT_CPU_THREADS=2",
    "scalar"); ``env`` is the full pin for that run (gate pin plus the run's own knob values)."""

    label: str
    probe: ProbeRef
    args: Mapping[str, Any]
    env: Mapping[str, str]
    check_stale: bool = True


@dataclass(frozen=True)
class Cases:
    passed: int
    failed: int
    failed_ids: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"passed": self.passed, "failed": self.failed, "failed_ids": list(self.failed_ids)}


@dataclass(frozen=True)
class Verdict:
    """A kind's judgement of observations against a pin: ``passed`` plus a summary for a tired human."""

    passed: bool
    summary: str
    measured: Mapping[str, Any] = field(default_factory=dict)
    pinned: Mapping[str, Any] = field(default_factory=dict)
    cases: Cases | None = None


@dataclass(frozen=True)
class DeliberateRed:
    issue: str
    reason: str


@dataclass(frozen=True)
class GateSpec:
    """One declared gate. ``options`` holds the kind-specific keys, already validated by the kind.
    ``golden`` is the resolved golden-file path (only for kinds whose pin lives in a golden file).
    ``resources`` (``resources = {GPU = 1}``) are the Dask worker resources its runs need on a cluster."""

    name: str
    kind: str
    probe: ProbeRef | None
    args: Mapping[str, Any]
    env: Mapping[str, str]
    env_reason: str | None
    tier: str
    golden: Path | None
    deliberate_red: DeliberateRed | None
    timeout: float
    options: Mapping[str, Any]
    line: int | None
    source: Path
    description: str = ""
    resources: Mapping[str, float] = field(default_factory=dict)  # Dask worker resources its runs need

    @property
    def where(self) -> str:
        """``file:line`` of the gate's ``[[gate]]`` header, for error messages."""
        return f"{self.source}:{self.line}" if self.line else str(self.source)


@dataclass(frozen=True)
class SuiteSettings:
    """The ``[suite]`` table: how to run the code under test (docs/contracts.md section 3)."""

    pythonpath: tuple[str, ...] = ()
    source_tree: str | None = None
    goldens: Path = Path("goldens")
    timeout: float = 120.0
    knob_prefixes: tuple[str, ...] = ("VT_",)  # ambient knobs: names with these prefixes (plus those the suite names)
    isolate_env: bool = False  # run probes without the ambient knobs of the caller's shell
    python: str | None = None  # absolute interpreter for probes ([suite] python, resolved in the user's checkout)
    knob_exemptions: tuple[tuple[str, str], ...] = ()  # (knob, reason): values `vtgate knobs` need not see set
    artifacts: tuple[str, ...] = ()  # globs of untracked files (weights) under the project, linked into mutate copies
    preload: tuple[str, ...] = ("numpy",)  # third-party modules the fork-server zygote imports (never the code under test)
    fork_servers: bool = True  # callable probes answered by warm fork servers (false: a fresh interpreter per run)


@dataclass(frozen=True)
class Suite:
    """A loaded suite. ``root`` is the project the suite belongs to (default code under test, and the
    base of golden paths). ``mutations`` is the raw ``[[mutation]]`` array, validated by vtgate mutate."""

    path: Path
    root: Path
    settings: SuiteSettings
    gates: tuple[GateSpec, ...]
    mutations: tuple[Mapping[str, Any], ...] = ()

    def gate(self, name: str) -> GateSpec:
        for spec in self.gates:
            if spec.name == name:
                return spec
        raise KeyError(name)
