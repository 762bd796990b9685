"""A tiny command-line engine for vtgate's own-engine tests: a deterministic "language model" over a
48-token vocabulary (each step's logits come from a seeded generator over the context), driven the way
an outside engine is: ``python tinyengine.py`` reads its probe arguments from VTGATE_PROBE_ARGS and
prints an observation built with vtgate.probe (``--raw``: just tokens and logits).

Knobs (read here only): TINY_THREADS (no effect on numerics), TINY_ATTN_IMPL (``eager``; ``sdpa``
and ``flash`` change every logit by a relative 1e-5, never a token), TINY_FAST_EXP (``1`` shifts
logits enough to flip tokens). ``python tinyengine.py arms`` prints the arm registry."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

VOCAB = 48


def knobs() -> dict[str, str]:
    return {
        "TINY_THREADS": os.environ.get("TINY_THREADS", "1"),
        "TINY_ATTN_IMPL": os.environ.get("TINY_ATTN_IMPL", "eager"),
        "TINY_FAST_EXP": os.environ.get("TINY_FAST_EXP", "0"),
    }


def step_logits(context: list[int], knob: dict[str, str]) -> np.ndarray:
    seed = 0
    for token in context:
        seed = (seed * 31 + token + 7) % (2**32)
    row = np.random.default_rng(seed).standard_normal(VOCAB) * 3.0
    if knob["TINY_ATTN_IMPL"] == "sdpa":
        row = row * (1 + 1e-5)
    elif knob["TINY_ATTN_IMPL"] == "flash":
        row = row * (1 - 1e-5)
    if knob["TINY_FAST_EXP"] == "1":
        row = row + 4.0 * np.cos(np.arange(VOCAB) * (1 + len(context)))
    return row.astype(np.float32)


def encode(text: str) -> list[int]:
    return [byte % VOCAB for byte in text.encode("utf-8")]


def run(args: dict) -> tuple[list[int], list[np.ndarray]]:
    knob = knobs()
    context = encode(args.get("prompt", ""))
    tokens: list[int] = []
    rows: list[np.ndarray] = []
    if "reference" in args:  # teacher forcing: the argmax at each position of the reference
        for forced in encode(args["reference"]):
            row = step_logits(context, knob)
            rows.append(row)
            tokens.append(int(np.argmax(row)))
            context.append(forced)
    else:
        for _ in range(int(args.get("tokens", 8))):
            row = step_logits(context, knob)
            rows.append(row)
            tokens.append(int(np.argmax(row)))
            context.append(tokens[-1])
    return tokens, rows


def main(argv: list[str]) -> int:
    if argv[:1] == ["arms"]:
        arms = [{"name": "eager", "knob": "TINY_ATTN_IMPL", "default": True},
                {"name": "attn", "knob": "TINY_ATTN_IMPL", "default": False},
                {"name": "fast-exp", "knob": "TINY_FAST_EXP", "default": False}]
        print(json.dumps({"arms": arms}))
        return 0
    if argv[:1] == ["serve"]:  # a persistent worker: one process answers many runs
        from vtgate.probe import observation, serve
        from vtgate.treehash import source_tree_hash

        loaded = source_tree_hash(Path(__file__).resolve().parent)  # the code this worker runs, hashed once

        with open("starts.log", "a", encoding="utf-8") as log:
            log.write(f"{os.getpid()}\n")
        if "--crash-on" in argv:
            crash_on = argv[argv.index("--crash-on") + 1]
        else:
            crash_on = None

        crash_once_on = argv[argv.index("--crash-once-on") + 1] if "--crash-once-on" in argv else None
        stdout = os.fdopen(os.dup(1), "w")  # before serve() points fd 1 at stderr: for --print-junk

        def answer(**args):
            if args.get("prompt") == crash_on:
                os._exit(9)
            if args.get("prompt") == crash_once_on and not Path("crashed.once").exists():
                Path("crashed.once").write_text("")
                os._exit(9)
            if args.get("prompt") == "junk":  # a worker that prints a log line on its stdout
                stdout.write("loading weights...\n")
                stdout.flush()
            if args.get("prompt") == "raise":
                raise ValueError("no such prompt")
            tokens, rows = run(args)
            return observation(tokens, np.stack(rows), engine="tinyengine", knobs=knobs(),
                               meta={"source_tree_hash": loaded})

        return serve(answer)
    args = json.loads(os.environ.get("VTGATE_PROBE_ARGS") or "{}")
    tokens, rows = run(args)
    if "--raw" in argv:
        print(json.dumps({"tokens": tokens, "logits": [row.tolist() for row in rows]}))
        return 0
    from vtgate.probe import observation

    here = Path(__file__).resolve().parent
    print(json.dumps(observation(tokens, np.stack(rows), engine="tinyengine", source_tree=here, knobs=knobs())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
