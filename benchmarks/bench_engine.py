"""Benchmark of the reference engine on vt-tiny: a 16-token prompt, 128 greedy tokens, 1 thread.

Each arm runs in its own subprocess (``vtengine bench --json -``) with its knob set and BLAS pinned
to one thread; medians over several runs. Peak RSS comes from a separate 128-token run. The table
is printed and written into docs/engine.md between the bench markers. Not a test: no assertions,
the targets are listed beside the numbers.

    .venv/bin/python benchmarks/bench_engine.py [--runs 5] [--no-write]
    .venv/bin/python benchmarks/bench_engine.py --flips   # token flips of each opt-in arm (slow)

``--flips`` measures, for 8 prompts x 128 greedy tokens of the default arm, how each opt-in arm
scores the same chain teacher-forced: positions whose logits change in any bit, and argmax flips,
split into near-tie (default margin < 0.05) and hard; plus the f32 path against the independent
float64 reference of tests/engine/reference_llama.py over 64 positions.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from benchlib import write_section

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "engine.md"
VTENGINE = str(Path(sys.executable).parent / "vtengine")

ARMS = [
    ("default", {}, ">= 250 decode tok/s"),
    ("gemv BLAS", {"VT_CPU_GEMV_BLAS": "1"}, ">= 500 decode tok/s"),
    ("attention FMA", {"VT_CPU_PAGED_ATTN_SCALAR_FMA": "1"}, "128 tokens < 30 s"),
    ("attention BFDOT", {"VT_CPU_PAGED_ATTN_BFDOT": "1"}, "-"),
    ("gemv BF16 dot", {"VT_CPU_GEMV_BF16_DOT": "1"}, "-"),
]

RSS_CHILD = """
import resource
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import load_model
Engine(load_model("vt-tiny"), Knobs.from_env()).generate([(7 * i + 3) % 256 for i in range(16)], 128)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)  # KiB on Linux
"""


ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "VT_CPU_THREADS": "1"}


def child_env(knobs: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VT_")}
    env.update(ONE_THREAD)
    env.update(knobs)
    return env


def bench_arm(knobs: dict[str, str], runs: int) -> dict[str, float]:
    started = time.perf_counter()
    done = subprocess.run(
        [VTENGINE, "bench", "--prompt-tokens", "16", "--tokens", "128", "--runs", str(runs), "--json", "-"],
        capture_output=True, text=True, env=child_env(knobs), check=True,
    )
    result = json.loads(done.stdout)
    result["wall_s"] = time.perf_counter() - started
    result["seconds_128"] = 16 / result["prefill_tok_s"] + 127 / result["decode_tok_s"]
    return result


def peak_rss_mb() -> float:
    done = subprocess.run([sys.executable, "-c", RSS_CHILD], capture_output=True, text=True, env=child_env({}), check=True)
    return int(done.stdout.strip()) / 1024


def table(results: list[tuple[str, str, dict[str, float]]], rss: float, runs: int, load_before: float) -> str:
    lines = [
        f"vt-tiny, 16-token prompt, 128 greedy tokens, 1 thread (BLAS pinned to 1 thread), median of {runs} runs; "
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average before/after "
        f"{load_before:.1f}/{os.getloadavg()[0]:.1f} (other work on the host slows wall-clock rates; the CPU-second "
        "column is less sensitive to it).",
        "",
        "| arm | decode tok/s | decode tok per CPU-second | prefill tok/s | one 128-token run (s) | target |",
        "|---|---|---|---|---|---|",
    ]
    for name, target, r in results:
        lines.append(
            f"| {name} | {r['decode_tok_s']:.0f} | {r['decode_tok_s_per_cpu_second']:.0f} | {r['prefill_tok_s']:.0f} "
            f"| {r['seconds_128']:.2f} | {target} |"
        )
    lines += ["", f"Peak RSS of a 128-token default-arm run in a fresh process: {rss:.0f} MB (target < 300 MB)."]
    default = results[0][2]
    decode_rows = [r for r in default["profile"] if r["phase"] == "decode"]
    lines += ["", "Default-arm decode profile (VT_PROFILE=1, one 128-token run):", "", "| stage | seconds | calls | share |", "|---|---|---|---|"]
    for row in decode_rows:
        lines.append(f"| {row['stage']} | {row['seconds']:.4f} | {row['calls']} | {row['share']:.1%} |")
    return "\n".join(lines)


FLIP_PROMPTS = ["hello", "bench", "The quick brown fox", "1 2 3", "Once upon a time", "def main():", "vtgate", "zzz"]
NEAR_TIE_EPS = 0.05


def flips() -> str:
    import numpy as np

    sys.path.insert(0, str(ROOT / "tests" / "engine"))
    import reference_llama  # the independent float64 forward (tests/engine/reference_llama.py)
    from vtengine import tokenizer
    from vtengine.engine import Engine
    from vtengine.knobs import Knobs
    from vtengine.model import load_model

    model = load_model("vt-tiny")
    lines = ["| path | positions | max abs logit error vs float64 reference | argmax mismatches |", "|---|---|---|---|"]
    ids = [(11 * i + 5) % 256 for i in range(64)]
    want = reference_llama.forward_logits(model.config, model.dequantized_tensors(), ids)
    for act in ("f32", "bf16"):
        got = Engine(model, Knobs(act_dtype=act)).forward_logits(ids)
        error = float(np.abs(got.astype(np.float64) - want).max())
        lines.append(f"| VT_ACT_DTYPE={act} | {len(ids)} | {error:.2e} | {int((got.argmax(1) != want.argmax(1)).sum())} |")
    lines += ["", f"Opt-in arms vs default, teacher-forced on the default's own chains ({len(FLIP_PROMPTS)} prompts x "
              f"128 tokens; near tie = default margin < {NEAR_TIE_EPS}; BLAS pinned to 1 thread):", "",
              "| arm | positions | logits changed (any bit) | near-tie flips | hard flips | max abs logit diff |",
              "|---|---|---|---|---|---|"]
    base = Engine(model, Knobs())
    chains = [tokenizer.encode(p) + base.generate(tokenizer.encode(p), 128).tokens for p in FLIP_PROMPTS]
    scored = [base.score(c) for c in chains]
    arms = [("attention FMA", Knobs(paged_attn_scalar_fma=True)), ("attention BFDOT", Knobs(paged_attn_bfdot=True)),
            ("gemv BF16 dot", Knobs(gemv_bf16_dot=True)), ("gemv BLAS", Knobs(gemv_blas=True)),
            ("f32 activations", Knobs(act_dtype="f32"))]
    for name, knobs in arms:
        engine = Engine(model, knobs)
        changed = near = hard = total = 0
        worst = 0.0
        for prompt, chain, ref in zip(FLIP_PROMPTS, chains, scored, strict=True):
            got = engine.score(chain)
            lo = len(tokenizer.encode(prompt)) - 1
            window = slice(lo, lo + 128)
            total += 128
            changed += int((got.logits[window] != ref.logits[window]).any(axis=1).sum())
            worst = max(worst, float(np.abs(got.logits[window] - ref.logits[window]).max()))
            for i in range(lo, lo + 128):
                if got.tokens[i] != ref.tokens[i]:
                    near, hard = (near + 1, hard) if ref.margins[i] < NEAR_TIE_EPS else (near, hard + 1)
        lines.append(f"| {name} | {total} | {changed} | {near} | {hard} | {worst:.3f} |")
        print(lines[-1], file=sys.stderr)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/engine.md alone")
    parser.add_argument("--flips", action="store_true", help="measure accuracy and token flips instead of speed")
    args = parser.parse_args()
    if args.flips:
        # BLAS results depend on its thread count: pin it (before NumPy loads) like the speed runs
        os.environ.update({k: v for k, v in ONE_THREAD.items() if k != "VT_CPU_THREADS"})
        text = flips()
        print(text)
        if not args.no_write:
            write_section(DOC, text, "<!-- flips:start -->", "<!-- flips:end -->")
        return
    results = []
    load_before = os.getloadavg()[0]
    for name, knobs, target in ARMS:
        runs = 1 if "FMA" in name else args.runs
        results.append((name, target, bench_arm(knobs, runs)))
        print(f"{name}: decode {results[-1][2]['decode_tok_s']:.0f} tok/s", file=sys.stderr)
    text = table(results, peak_rss_mb(), args.runs, load_before)
    print(text)
    if not args.no_write:
        write_section(DOC, text)


if __name__ == "__main__":
    main()
