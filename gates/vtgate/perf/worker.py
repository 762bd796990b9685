"""A warm probe process for perf legs: ``python -m vtgate.perf.worker module:function`` calls the probe
once per line of JSON arguments on stdin and answers each with one line of observation JSON on
stdout (the probe's own prints go to stderr, as in ``vtgate.run.child``), after a first line
``"ready"`` once the probe is imported. The perf leg runner keeps a few per role (rotated over
rounds), so a leg costs the probe call, not an interpreter start and imports; that is what lets a
perf gate time enough interleaved rounds to decide in a minute (docs/perf.md)."""

from __future__ import annotations

import importlib
import json
import os
import random
import sys

READY = b'"ready"'  # the first line a worker writes, once the probe is imported
PAD_ENV = "VTGATE_PERF_PAD"  # a random-length value set by the leg runner: moves the stack by a random amount
_BALLAST: list[bytearray] = []


def randomize_heap(rng: random.Random) -> None:
    """Allocate, and keep, a random number of blocks of random sizes before the probe is imported, so
    that everything the probe allocates afterwards (its model, its buffers) starts at a random offset
    in the heap. The speed of one program can depend by several percent on where its data lands (the
    size of its environment, the files it was loaded from); with a random layout per process, such a
    bias is a difference between processes, which the two-level bootstrap over process pairs counts,
    instead of an offset every process of one role shares."""
    _BALLAST[:] = [bytearray(rng.randrange(16, 4096)) for _ in range(rng.randrange(1, 512))]



def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or ":" not in args[0]:
        sys.stderr.write("usage: python -m vtgate.perf.worker module:function\n")
        return 2
    module_name, _, function_name = args[0].partition(":")
    randomize_heap(random.Random(os.urandom(16)))
    sys.stdout.flush()
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # the probe's own prints go to stderr
    function = getattr(importlib.import_module(module_name), function_name)
    answers.write(READY.decode() + "\n")
    answers.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        observation = function(**json.loads(line))
        answers.write(json.dumps(observation, allow_nan=False) + "\n")
        answers.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
