"""The one place the engine reads environment variables: every ``VT_*`` knob, resolved once at the
edge into a frozen :class:`Knobs` record. Kernels and the engine receive resolved values only.

Each read is one call of ``os.environ.get`` with the knob's literal name and literal default, so
``vtgate envdoc`` can check names and defaults against docs/ENVIRONMENT.md.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class KnobError(ValueError):
    """A VT_* knob holds a value the engine cannot use; the message names the knob and the fix."""


def _flag(name: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise KnobError(f"{name}={raw!r} is not a flag: use 1 or 0")


def _int(name: str, raw: str, lowest: int) -> int:
    try:
        value = int(raw.strip())
    except ValueError:
        raise KnobError(f"{name}={raw!r} is not an integer") from None
    if value < lowest:
        raise KnobError(f"{name}={value} is below the minimum {lowest}")
    return value


def _choice(name: str, raw: str, choices: tuple[str, ...]) -> str:
    value = raw.strip().lower()
    if value not in choices:
        raise KnobError(f"{name}={raw!r}: choose one of {', '.join(choices)}")
    return value


def running_in_ci() -> bool:
    """Whether a CI service runs us (``CI`` set to anything but 0/false/no, as CI services do): the
    CLI then draws no live progress. Not a numerics knob, and not part of ``Knobs``."""
    return (os.environ.get("CI") or "").strip().lower() not in ("", "0", "false", "no")


@contextmanager
def scoped_env(values: Mapping[str, str]) -> Iterator[None]:
    """Set ``values`` (VT_* name -> string) in this process's environment for the ``with`` block, then
    put back what was there: the sequence probes change knobs between calls in one process."""
    saved = {name: os.environ[name] for name in values if name in os.environ}
    os.environ.update(values)
    try:
        yield
    finally:
        _put_back(values, saved)


def _put_back(names: Iterable[str], saved: Mapping[str, str]) -> None:
    """Each of ``names`` set to its ``saved`` value, or unset when it has none."""
    for name in names:
        if name in saved:
            os.environ[name] = saved[name]
        else:
            os.environ.pop(name, None)


def environment() -> dict[str, str]:
    """A copy of this process's environment (to compare before and after)."""
    return dict(os.environ)


def inherited_environment() -> dict[str, str]:
    """The environment a child process started now receives: the process's own, which Python's
    ``os.environ`` normally mirrors (a rebinding of ``os.environ`` would show here as a difference)."""
    import json
    import subprocess
    import sys

    child = subprocess.run([sys.executable, "-c", "import json, os; print(json.dumps(dict(os.environ)))"],
                           capture_output=True, text=True, timeout=60, check=True)
    return dict(json.loads(child.stdout))


def restore_environment(saved: Mapping[str, str]) -> None:
    """Make this process's environment exactly ``saved`` again."""
    os.environ.clear()
    os.environ.update(saved)


@contextmanager
def unset(names: Iterable[str]) -> Iterator[None]:
    """``names`` unset for the ``with`` block; afterwards each is as it was before (set to its old
    value, or unset), whatever the block did to it."""
    names = list(names)
    saved = {name: os.environ.pop(name) for name in names if name in os.environ}
    try:
        yield
    finally:
        _put_back(names, saved)


def child_env(values: Mapping[str, str]) -> dict[str, str]:
    """This process's environment with ``values`` set: for engine subprocesses."""
    return {**os.environ, **values}


@dataclass(frozen=True)
class Knobs:
    """Resolved knobs. Build from the environment with :meth:`from_env`, or directly in tests."""

    dequant_cache_mb: int = 64
    dequant_cache_policy: str = "lru"  # lru | pin
    act_dtype: str = "bf16"  # bf16 | f32
    kv_block_size: int = 16
    cpu_threads: int = 1
    paged_attn_scalar_fma: bool = False
    paged_attn_bfdot: bool = False
    gemv_bf16_dot: bool = False
    gemv_blas: bool = False
    profile: bool = False
    cache_dir: str = "~/.cache/vtengine"

    @classmethod
    def from_env(cls) -> Knobs:
        return cls(
            dequant_cache_mb=_int(
                "VT_DEQUANT_CACHE_MB", os.environ.get("VT_DEQUANT_CACHE_MB", "64"), 0
            ),
            dequant_cache_policy=_choice(
                "VT_DEQUANT_CACHE_POLICY",
                os.environ.get("VT_DEQUANT_CACHE_POLICY", "lru"),
                ("lru", "pin"),
            ),
            act_dtype=_choice("VT_ACT_DTYPE", os.environ.get("VT_ACT_DTYPE", "bf16"), ("bf16", "f32")),
            kv_block_size=_int("VT_KV_BLOCK_SIZE", os.environ.get("VT_KV_BLOCK_SIZE", "16"), 1),
            cpu_threads=_int("VT_CPU_THREADS", os.environ.get("VT_CPU_THREADS", "1"), 1),
            paged_attn_scalar_fma=_flag(
                "VT_CPU_PAGED_ATTN_SCALAR_FMA", os.environ.get("VT_CPU_PAGED_ATTN_SCALAR_FMA", "0")
            ),
            paged_attn_bfdot=_flag(
                "VT_CPU_PAGED_ATTN_BFDOT", os.environ.get("VT_CPU_PAGED_ATTN_BFDOT", "0")
            ),
            gemv_bf16_dot=_flag("VT_CPU_GEMV_BF16_DOT", os.environ.get("VT_CPU_GEMV_BF16_DOT", "0")),
            gemv_blas=_flag("VT_CPU_GEMV_BLAS", os.environ.get("VT_CPU_GEMV_BLAS", "0")),
            profile=_flag("VT_PROFILE", os.environ.get("VT_PROFILE", "0")),
            cache_dir=os.environ.get("VT_CACHE_DIR", "~/.cache/vtengine"),
        )

    def with_(self, **changes: Any) -> Knobs:
        return dataclasses.replace(self, **changes)

    @property
    def cache_path(self) -> Path:
        return Path(self.cache_dir).expanduser()

    def as_env(self) -> dict[str, str]:
        """The knobs as the VT_* strings they resolve from (for observations' meta)."""
        return {
            "VT_DEQUANT_CACHE_MB": str(self.dequant_cache_mb),
            "VT_DEQUANT_CACHE_POLICY": self.dequant_cache_policy,
            "VT_ACT_DTYPE": self.act_dtype,
            "VT_KV_BLOCK_SIZE": str(self.kv_block_size),
            "VT_CPU_THREADS": str(self.cpu_threads),
            "VT_CPU_PAGED_ATTN_SCALAR_FMA": str(int(self.paged_attn_scalar_fma)),
            "VT_CPU_PAGED_ATTN_BFDOT": str(int(self.paged_attn_bfdot)),
            "VT_CPU_GEMV_BF16_DOT": str(int(self.gemv_bf16_dot)),
            "VT_CPU_GEMV_BLAS": str(int(self.gemv_blas)),
            "VT_PROFILE": str(int(self.profile)),
            "VT_CACHE_DIR": self.cache_dir,
        }
