"""Judge one mutated copy of the tree: the step ``vtgate mutate --code`` runs per mutant, the same on
this machine (``vtgate.mutate.coderun``) and on a Dask worker (``vtgate.mutate.remotemutants``). Holds
what both need: the ``[mutate.code]`` scope, a mutant's status, the mutated tree's identity in the cache
key, and ``judge_copy``, which runs the reaching gates on the copy until one kills the mutant."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from vtgate.errors import GateError
from vtgate.mutate.codemutants import OPERATORS
from vtgate.run.check import GateResult, judge_check, plan_check
from vtgate.run.execute import SharedRuns, expected_tree_hash
from vtgate.suite.records import GateSpec, Suite
from vtgate.treehash import source_tree_hash

# ledger-refuted: a ledger entry whose mutant the differential check tells apart from the original;
# ledger-unverified: one that no gate killed and the check could give no evidence for (both survivors
# in the verified score, excluded in the trusted one); equivalent: a ledger entry the check verified
Status = Literal["killed", "killed-by-crash", "killed-by-timeout", "survived", "possibly-equivalent",
                 "equivalent", "ledger-refuted", "ledger-unverified", "error"]
DEFAULT_LEDGER = "goldens/mutations/equivalent.toml"
ROOT_PLACEHOLDER = "{root}"


@dataclass(frozen=True)
class CodeScope:
    """``[mutate.code]``: which code is mutated and by which operators."""

    paths: tuple[str, ...]
    exclude: tuple[str, ...] = ()
    include_functions: tuple[str, ...] = ()
    exclude_functions: tuple[str, ...] = ()
    operators: tuple[str, ...] = OPERATORS
    equivalents: str = DEFAULT_LEDGER
    env: Mapping[str, str] = field(default_factory=dict)  # for mutant runs; "{root}" = the mutated copy
    dependencies: tuple[str, ...] = ("numpy", "ml_dtypes")  # packages whose versions decide a verdict
    copy: tuple[str, ...] = ()  # what a mutant's copy holds (files or folders); empty: every project file

    def env_for(self, root: Path) -> dict[str, str]:
        return {name: value.replace(ROOT_PLACEHOLDER, str(root)) for name, value in self.env.items()}


def tree_identity(root: Path, suite: Suite, scope: CodeScope) -> str:
    """The mutated tree in the cache key: ``[suite] source_tree``'s hash, or, without one, a hash of
    every file under the mutated paths (so a suite without a source tree never reuses a stale verdict)."""
    pinned = expected_tree_hash(root, suite.settings)
    if pinned is not None:
        return pinned
    digest = hashlib.sha256()
    for entry in scope.paths:
        target = root / entry
        if target.is_dir():
            digest.update(entry.encode() + b"\0" + source_tree_hash(target).encode())
        elif target.is_file():
            digest.update(entry.encode() + b"\0" + hashlib.sha256(target.read_bytes()).hexdigest().encode())
    return digest.hexdigest()


def _comparable(observation: Mapping[str, Any] | None) -> Any:
    """An observation without what always differs between trees (meta: hashes, versions, timings)."""
    if observation is None:
        return None
    return {k: v for k, v in observation.items() if k not in ("meta", "timings", "seconds")}


def same_observations(results: Mapping[str, GateResult], baseline: Mapping[str, GateResult]) -> bool:
    for name, result in results.items():
        mine = {label: _comparable(o) for label, o in result.observations.items()}
        theirs = {label: _comparable(o) for label, o in baseline[name].observations.items()}
        if mine != theirs:
            return False
    return True


def judge_copy(reaching: Sequence[GateSpec], suite: Suite, copy: Path, shared: SharedRuns,
               pins: Mapping[str, Mapping[str, Any] | GateError], mutant_env: Mapping[str, str],
               ran: list[str], results: dict[str, GateResult]) -> tuple[Status, str | None, str] | None:
    """Run the reaching gates on a mutated copy, one at a time (fork servers answer its runs), until one
    kills the mutant (its status, the gate and why) or all stay green (None). ``ran`` and ``results``
    collect what ran. The same on this machine and on a Dask worker (``vtgate.mutate.remotemutants``)."""
    shared.serve(copy)  # one warm fork server per probe module answers this copy's runs
    try:
        for spec in reaching:
            ran.append(spec.name)
            planned = plan_check([spec], suite, copy, shared, pins=pins, extra_env=mutant_env)
            result = judge_check(planned, [spec], suite, shared, pins)[spec.name]
            results[spec.name] = result
            if result.status == "red":
                return "killed", spec.name, result.summary
            if result.status == "error":
                kind = result.error_kind or ""
                status: Status
                if kind == "timeout":
                    status = "killed-by-timeout"
                elif kind == "artifact":  # the check names the changed artifact: a detection
                    status = "killed"
                elif kind in ("probe", "stale"):
                    status = "killed-by-crash" if kind == "probe" else "error"
                else:
                    status = "error"
                return status, spec.name, (result.error or "").splitlines()[0] if result.error else kind
        return None
    finally:
        shared.release(copy)
