"""The content-addressed verdict cache, persisted under the cache folder across runs and ranges.

A key is the sha256 of everything that defines a verdict: the candidate's *tree* id (not its commit,
so a rebased copy of the same code hits), the reverts applied (in order), the oracle digest (the
command argv and the judge's identity outside the candidate tree: the content of every script or
file it names that the worktree does not hold, its interpreter's path and ``--version``; or the suite
file and its goldens), the knobs that reach the judge (variables with the suite's knob prefixes,
``VT_`` by default, and those the suite names; the import path, hash seed, locale, BLAS / OpenMP
thread counts), the repeat count, and the vtbisect version. ``PATH`` itself is not in the key: what it
decides, where the command resolves, is in the judge's identity, so an unrelated folder added to
``PATH`` still hits. Entries are small JSON files written atomically, so two runs
on one repository can share the cache without corrupting it, and an interrupted run resumes from
what it had already judged."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vtgate.run.execute import TOOL_PREFIXES

from vtbisect import __version__

CACHE_SCHEMA = 2  # 2: the judge's identity in the oracle part; PATH out of the key

# Environment variables that can change a verdict besides the knobs: how Python finds modules, the
# hash seed, the locale, and the thread counts of the BLAS / OpenMP libraries a judge may load (a
# different count splits a sum differently, so it can change the bits of a result). PATH is not one
# of them: where the command resolves on PATH is part of the judge's identity (judgecmd.py).
ENV_PREFIXES = ("VT_",)
THREAD_NAMES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
ENV_NAMES = ("PYTHONPATH", "PYTHONHASHSEED", "LANG", "LC_ALL", *THREAD_NAMES)
# vtbisect's own settings (VT_BISECT_CACHE_DIR: where the cache lives) and where a judgement runs
# (VT_EXECUTOR, VT_DASK_*: docs/distributed.md) never change a verdict.
OWN_PREFIX = TOOL_PREFIXES


@dataclass(frozen=True)
class Knobs:
    """Which variables are knobs: names with one of ``prefixes`` (a suite's ``[suite] knob_prefixes``,
    ``VT_`` by default) and the names a suite itself pins or sweeps (``named``)."""

    prefixes: tuple[str, ...] = ENV_PREFIXES
    named: frozenset[str] = frozenset()

    def selects(self, name: str) -> bool:
        return name in self.named or (bool(self.prefixes) and name.startswith(self.prefixes))


DEFAULT_KNOBS = Knobs()


def verdict_env(env: Mapping[str, str], knobs: Knobs = DEFAULT_KNOBS) -> dict[str, str]:
    """The part of ``env`` that goes into cache keys (and the evidence's runner recipe)."""
    return {
        k: v for k, v in sorted(env.items())
        if (k in ENV_NAMES or knobs.selects(k)) and not k.startswith(OWN_PREFIX)
    }


def thread_env(env: Mapping[str, str]) -> dict[str, str | None]:
    """Each BLAS / OpenMP thread-count variable and its value, None when unset (the library then
    picks a count from the machine), for the evidence."""
    return {name: env.get(name) for name in THREAD_NAMES}


@dataclass(frozen=True)
class CacheKey:
    tree: str
    reverts: tuple[str, ...]
    oracle: str
    env: tuple[tuple[str, str], ...]
    repeat: int
    purpose: str = "judge"  # "confirm": a re-judgement kept apart from the search's verdict

    def digest(self) -> str:
        payload = {
            "schema": CACHE_SCHEMA,
            "vtbisect": __version__,
            "tree": self.tree,
            "reverts": list(self.reverts),
            "oracle": self.oracle,
            "env": [list(pair) for pair in self.env],
            "repeat": self.repeat,
            "purpose": self.purpose,
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def make_key(
    tree: str, reverts: Sequence[str], oracle: str, env: Mapping[str, str], repeat: int, purpose: str = "judge",
    knobs: Knobs = DEFAULT_KNOBS,
) -> CacheKey:
    return CacheKey(tree, tuple(reverts), oracle, tuple(verdict_env(env, knobs).items()), repeat, purpose)


class VerdictCache:
    """Verdict records by key digest under ``<cache>/verdicts/``; ``enabled=False`` is --no-cache
    (nothing read, nothing written)."""

    def __init__(self, cache_dir: Path, *, enabled: bool = True) -> None:
        self.root = cache_dir / "verdicts"
        self.enabled = enabled

    def _path(self, key: CacheKey) -> Path:
        digest = key.digest()
        return self.root / digest[:2] / f"{digest}.json"

    def get(self, key: CacheKey) -> dict[str, Any] | None:
        if not self.enabled:
            return None
        path = self._path(key)
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return record if record.get("schema") == CACHE_SCHEMA else None

    def put(self, key: CacheKey, record: Mapping[str, Any]) -> None:
        if not self.enabled:
            return
        path = self._path(key)
        data = {"schema": CACHE_SCHEMA, **record}
        # Atomic (a reader sees nothing or the whole entry) but not fsynced: an entry lost in a power
        # cut is only a judgement to redo.
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(data, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, path)


def file_digest(paths: Sequence[Path], base: Path) -> str:
    """sha256 over relative path + content of each file (sorted), for oracle digests."""
    digest = hashlib.sha256()
    for path in sorted(paths, key=lambda p: p.relative_to(base).as_posix()):
        digest.update(path.relative_to(base).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def default_cache_dir(git_common_dir: Path) -> Path:
    override = os.environ.get("VT_BISECT_CACHE_DIR")
    return Path(override) if override else git_common_dir / "vtbisect"
