"""Benchmark ``vtgate envdoc`` on a generated 500k-line Python tree (issue 4: under 10 s).

Generates a tree of modules that look like engine code (classes, functions, loops, comprehensions,
docstrings, imports), a share of them reading ``VT_*`` knobs in every supported form, plus a doc
table documenting those knobs; then times ``run_envdoc`` over several runs and prints the medians.

    .venv/bin/python benchmarks/bench_envdoc.py [--lines 500000] [--runs 5] [--reads-share 0.2]

Two cases are timed: the realistic tree (``--reads-share`` of the files touch the environment, the
rest are skipped by the text pre-filter after being read and decoded) and the worst case, where every
file mentions ``os.environ`` and so every file is parsed. Each case runs sequentially (``jobs=1``) and
with the default process pool."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from vtgate.envdoc import EnvdocConfig, run_envdoc

BODY = '''

class Block{i}:
    """A block of generated engine code number {i}."""

    def __init__(self, width: int = {w}, depth: int = 3) -> None:
        self.width = width
        self.depth = depth
        self.table = {{k: k * {w} for k in range(depth)}}

    def forward(self, values: list[float]) -> list[float]:
        out = []
        for index, value in enumerate(values):
            if index % 2 == 0 and value > 0.5:
                out.append(value * self.width + {i})
            elif value < -0.5:
                out.append(-value / (self.depth or 1))
            else:
                out.append(sum(v for v in values[:index]) / max(index, 1))
        return [round(x, 4) for x in out]


def helper_{i}(text: str, *, scale: float = 1.5) -> str:
    # a comment mentioning nothing in particular {i}
    words = [w.strip() for w in text.split(",") if w]
    return "-".join(sorted(set(words))) + f"{{scale:.2f}}"
'''

READS = """
import os
from os import environ as ENV, getenv as read_env

KNOB_{f} = "VT_BENCH_{f}_A"


def knobs_{f}() -> dict[str, str | None]:
    return {{
        "a": os.environ.get(KNOB_{f}, "1"),
        "b": os.getenv("VT_BENCH_{f}_B"),
        "c": ENV.get("VT_BENCH_" + "{f}_C", "0"),
        "d": read_env(f"VT_BENCH_{f}_D"),
        "e": str("VT_BENCH_{f}_E" in os.environ),
    }}
"""

MENTION = """
import os


def environment_size_{f}() -> int:
    return len(os.environ)
"""


def generate(root: Path, total_lines: int, reads_share: float, mention_all: bool) -> tuple[int, int, int]:
    """Write the tree and its doc; return (files, lines, knobs)."""
    package = root / "src" / "benchpkg"
    lines = files = knobs = 0
    doc_rows: list[str] = []
    every = max(1, round(1 / reads_share)) if reads_share > 0 else 0
    while lines < total_lines:
        sub = package / f"sub{files // 50:03d}"
        sub.mkdir(parents=True, exist_ok=True)
        parts = ['"""Generated module for the envdoc benchmark."""\n\nfrom __future__ import annotations\n']
        if every and files % every == 0:
            parts.append(READS.format(f=files))
            for letter, default in zip("ABCDE", ("1", "(unset)", "0", "(unset)", "(unset)"), strict=True):
                doc_rows.append(f"| VT_BENCH_{files}_{letter} | {default} | generated knob | yes |")
            knobs += 5
        elif mention_all:
            parts.append(MENTION.format(f=files))
        parts.extend(BODY.format(i=files * 100 + block, w=block + 2) for block in range(16))
        text = "".join(parts)
        (sub / f"mod{files:05d}.py").write_text(text, encoding="utf-8")
        lines += text.count("\n")
        files += 1
    docs = root / "docs"
    docs.mkdir(exist_ok=True)
    header = "| name | default | effect | bit-exact with default? |\n|---|---|---|---|\n"
    (docs / "ENVIRONMENT.md").write_text(
        "# Knobs\n\n" + header + "\n".join(doc_rows) + "\n", encoding="utf-8"
    )
    return files, lines, knobs


def time_runs(root: Path, runs: int, jobs: int | None) -> tuple[float, list[float], float, str]:
    """Median wall seconds, every run's wall seconds, median CPU seconds of this process (meaningful
    for jobs=1: it does not depend on what else the machine is running), and the report's summary."""
    config = EnvdocConfig.load(root, {"jobs": jobs} if jobs else None)
    times: list[float] = []
    cpu: list[float] = []
    summary = ""
    for _ in range(runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        report = run_envdoc(root, config)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        summary = report.summary
        if not report.ok:
            raise SystemExit(f"benchmark tree should be clean but envdoc says: {summary}")
    return statistics.median(times), times, statistics.median(cpu), summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=500_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--reads-share", type=float, default=0.2, help="share of files that read knobs")
    args = parser.parse_args(argv)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load} at start")
    for label, mention_all in (("realistic", False), ("worst case: every file parsed", True)):
        with tempfile.TemporaryDirectory(prefix="envdoc-bench-") as tmp:
            root = Path(tmp)
            files, lines, knobs = generate(root, args.lines, args.reads_share, mention_all)
            print(f"\n{label}: {files} files, {lines} lines, {knobs} knobs")
            for jobs_label, jobs in (("sequential (jobs=1)", 1), ("default (process pool)", None)):
                median, times, cpu, summary = time_runs(root, args.runs, jobs)
                shown = ", ".join(f"{t:.2f}" for t in times)
                cpu_note = f"; CPU {cpu:.2f} s" if jobs == 1 else ""
                print(f"  {jobs_label:24s} median {median:.2f} s  (runs: {shown}{cpu_note})")
            print(f"  {summary}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
