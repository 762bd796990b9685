"""A tiny deterministic stand-in engine for vtgate's own tests: probes that behave like an engine's
(tokens, margins, digests, counters, cases, meta.source_tree_hash) and switch behaviour through env
knobs the way real arms do. It is copied into each test's project and run through real subprocesses."""

from __future__ import annotations

import hashlib
import os
import struct
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
NEAR_TIE_MARGIN = 0.01
CLEAR_MARGIN = 0.5


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


def _log() -> None:
    log = os.environ.get("FAKE_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(" ".join(sys.argv[1:]) + "\n")


def _meta() -> dict:
    knobs = {k: v for k, v in os.environ.items() if k.startswith("FAKE_") and k != "FAKE_LOG"}
    meta = {"engine": "fake", "source_tree_hash": _tree_hash(), "source_root": str(HERE), "knobs": knobs}
    weights = Path("weights.bin")  # a derived artifact in the project (cwd): reported by its digest
    if weights.is_file():
        meta["artifacts"] = {"model:fake": hashlib.sha256(weights.read_bytes()).hexdigest()}
    return meta


def _stream(prompt: str, tokens: int) -> list[int]:
    seed = int(hashlib.sha256(prompt.encode()).hexdigest()[:8], 16)
    stream = [(seed + 7 * i * i + 3 * i) % 97 for i in range(tokens)]
    # FAKE_FLIP="5,9": an opt-in arm that moves the token at those positions.
    for position in filter(None, os.environ.get("FAKE_FLIP", "").split(",")):
        if int(position) < tokens:
            stream[int(position)] = (stream[int(position)] + 1) % 97
    # FAKE_LEAK=KNOB: the knob KNOB (threads, budget) leaks into numerics when set to anything but "1".
    leak = os.environ.get("FAKE_LEAK")
    if leak and os.environ.get(leak, "1") != "1" and tokens > 2:
        stream[2] = (stream[2] + 1) % 97
    return stream


def generate(prompt: str = "hi", tokens: int = 12) -> dict:
    _log()
    stream = _stream(prompt, tokens)
    budget = int(os.environ.get("FAKE_BUDGET", "0"))
    misses = (4 if budget else tokens * 2) + int(os.environ.get("FAKE_EXTRA_MISS", "0"))
    return {
        "tokens": stream,
        "margins": [(NEAR_TIE_MARGIN if i % 5 == 3 else CLEAR_MARGIN) + float(os.environ.get("FAKE_MARGIN_SHIFT", "0"))
                    for i in range(tokens)],
        "digests": {"stream": hashlib.sha256(struct.pack(f"<{len(stream)}i", *stream)).hexdigest(),
                    # the numbers behind the tokens: FAKE_LOGITS_DRIFT moves them, not the stream
                    "logits": hashlib.sha256(f"{stream}{os.environ.get('FAKE_LOGITS_DRIFT', '')}".encode()).hexdigest()},
        "counters": {"hits": tokens * 2 - misses + tokens * 3, "misses": misses, "evictions": 0 if budget else 1},
        "metrics": {"anchor": sum((i + 1) * t for i, t in enumerate(stream)) % 100000},
        "meta": _meta(),
    }


def cases(impl: str = "dispatch", n: int = 12) -> dict:
    """Per-case digests; under FAKE_FMA=1 the dispatch impl differs from scalar on every third case."""
    _log()
    out = {}
    for i in range(n):
        value = hashlib.sha256(f"case-{i}".encode()).hexdigest()
        if impl == "dispatch" and os.environ.get("FAKE_FMA") == "1" and i % 3 == 0:
            value = hashlib.sha256(f"fma-{i}".encode()).hexdigest()
        out[f"case-{i}"] = value
    digest = hashlib.sha256("".join(out.values()).encode()).hexdigest()
    return {"cases": out, "digests": {"cases": digest}, "meta": _meta()}


def speculative(tokens: int = 20) -> dict:
    _log()
    extra = int(os.environ.get("FAKE_DRAFT_EXTRA", "0"))
    return {"counters": {"proposed": 59 + extra, "accepted": 53}, "metrics": {"acceptance": round(53 / (59 + extra), 4)},
            "meta": _meta()}


def echo_env() -> dict:
    _log()
    return {"cases": {k: v for k, v in sorted(os.environ.items()) if k.startswith("FAKE_") and k != "FAKE_LOG"},
            "meta": _meta()}


def noisy() -> dict:
    print("chatter on stdout from the probe itself")
    return {"tokens": [1, 2, 3], "meta": _meta()}


def crash() -> dict:
    print("loading weights...", file=sys.stderr)
    raise RuntimeError("kernel exploded at layer 3")


def hang(seconds: float = 60) -> dict:
    print("about to hang", file=sys.stderr, flush=True)
    time.sleep(seconds)
    return {}


def not_an_object() -> list:
    return [1, 2, 3]
