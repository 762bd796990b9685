"""A tiny deterministic engine for vtgate mutate's tests: probes shaped like a real engine's (tokens,
margins, digests, counters, cases, meta.source_tree_hash), opt-in "arms" behind MUT_* knobs, and an
arm registry. Copied into each test's project (a real git repository) and run by real subprocesses."""

from __future__ import annotations

import hashlib
import os
import struct
from pathlib import Path

HERE = Path(__file__).parent
ARMS = [
    {"kernel": "attention", "name": "default", "knob": None, "default": True},
    {"kernel": "attention", "name": "fma", "knob": "MUT_FMA", "default": False},
    {"kernel": "gemv", "name": "default", "knob": None, "default": True},
    {"kernel": "gemv", "name": "fast", "knob": "MUT_FAST", "default": False},
]


def _tree_hash() -> str:
    digest = hashlib.sha256()
    files = sorted(
        (p.relative_to(HERE).as_posix(), p)
        for p in HERE.rglob("*.py")
        if not any(part.startswith(".") or part == "__pycache__" for part in p.relative_to(HERE).parts)
    )
    for relpath, path in files:
        digest.update(relpath.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _meta() -> dict:
    return {"engine": "mutfake", "source_tree_hash": _tree_hash(), "source_root": str(HERE.parent)}


def _stream(prompt: str, tokens: int) -> list[int]:
    seed = int(hashlib.sha256(prompt.encode()).hexdigest()[:8], 16)
    stream = [(seed + 7 * i * i + 3 * i) % 97 for i in range(tokens)]
    if os.environ.get("MUT_FMA") == "1" and tokens > 3:
        stream[3] = (stream[3] + 1) % 97  # the FMA arm flips position 3 (a near tie)
    return stream


def generate(prompt: str = "hi", tokens: int = 12) -> dict:
    stream = _stream(prompt, tokens)
    budget = int(os.environ.get("MUT_BUDGET", "0"))
    misses = 4 if budget else tokens * 2
    return {
        "tokens": stream,
        "margins": [0.01 if i % 5 == 3 else 0.5 + i / 100 for i in range(tokens)],
        "digests": {"stream": hashlib.sha256(struct.pack(f"<{len(stream)}i", *stream)).hexdigest()},
        "counters": {"hits": tokens * 3, "misses": misses, "evictions": 0 if budget else 1},
        "metrics": {"anchor": sum((i + 1) * t for i, t in enumerate(stream)) % 100000},
        "meta": _meta(),
    }


def cases(impl: str = "dispatch", n: int = 6) -> dict:
    out = {}
    for i in range(n):
        value = hashlib.sha256(f"case-{i}".encode()).hexdigest()
        if impl == "dispatch" and os.environ.get("MUT_FMA") == "1" and i == 2:
            value = hashlib.sha256(f"fma-{i}".encode()).hexdigest()
        out[f"case-{i}"] = value
    return {"cases": out, "meta": _meta()}


def speculative(tokens: int = 20) -> dict:
    accepted = 7 + (5 if os.environ.get("MUT_FAST") == "1" else 0)  # the fast arm drafts differently
    return {"counters": {"proposed": 25, "accepted": accepted}, "metrics": {"acceptance": accepted / 25},
            "meta": _meta()}


def arms() -> dict:
    """The arm registry, as the engine's own `arms --json -` prints it."""
    return {"schema": 1, "arms": ARMS}
