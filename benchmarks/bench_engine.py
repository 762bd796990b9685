"""Benchmark of the reference engine on vt-tiny: a 16-token prompt, 128 greedy tokens, 1 thread.

Each arm runs in its own subprocess (``vtengine bench --json -``) with its knob set and BLAS pinned
to one thread; medians over several runs. Peak RSS comes from a separate 128-token run. The table
is printed and written into docs/engine.md between the bench markers. Not a test: no assertions,
the targets are listed beside the numbers.

    .venv/bin/python benchmarks/bench_engine.py [--runs 5] [--no-write]
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

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "engine.md"
START, END = "<!-- bench:start -->", "<!-- bench:end -->"
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


def child_env(knobs: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VT_")}
    env.update({"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "VT_CPU_THREADS": "1"})
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


def table(results: list[tuple[str, str, dict[str, float]]], rss: float, runs: int) -> str:
    lines = [
        f"vt-tiny, 16-token prompt, 128 greedy tokens, 1 thread (BLAS pinned to 1 thread), median of {runs} runs; "
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
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


def write_doc(text: str) -> None:
    doc = DOC.read_text()
    block = f"{START}\n{text}\n{END}"
    if START in doc and END in doc:
        doc = doc[: doc.index(START)] + block + doc[doc.index(END) + len(END) :]
    else:
        doc = doc.rstrip() + "\n\n## Benchmark\n\n" + block + "\n"
    DOC.write_text(doc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/engine.md alone")
    args = parser.parse_args()
    results = []
    for name, knobs, target in ARMS:
        runs = 1 if "FMA" in name else args.runs
        results.append((name, target, bench_arm(knobs, runs)))
        print(f"{name}: decode {results[-1][2]['decode_tok_s']:.0f} tok/s", file=sys.stderr)
    text = table(results, peak_rss_mb(), args.runs)
    print(text)
    if not args.no_write:
        write_doc(text)


if __name__ == "__main__":
    main()
