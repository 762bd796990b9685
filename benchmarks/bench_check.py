"""Benchmark ``vtgate check`` on the engine's own suite (issue 5: under 30 s wall on this 2-core machine).

Runs the installed ``vtgate check --json`` (the real command, probes in subprocesses) several times and
prints the median wall time, every run's time, the CPU seconds spent (vtgate plus every probe process:
a number that does not depend on what else the machine is doing), how many probe runs were requested,
run and shared, and the slowest gates. Load average is printed at start and end: on a busy machine the
wall times are not the tool's.

    .venv/bin/python benchmarks/bench_check.py [--runs 5] [--root DIR] [-j N]

By default the code under test is a snapshot of the engine as committed at HEAD (``git archive``), so
edits in the working tree during the benchmark cannot trip the stale guard.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from benchlib import snapshot_head, timed_vtgate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--root", type=Path, default=None, help="tree under test (default: a snapshot of HEAD)")
    parser.add_argument("-j", "--jobs", type=int, default=None, help="parallel probe runs (default: cores)")
    args = parser.parse_args(argv)
    jobs = ["-j", str(args.jobs)] if args.jobs is not None else []
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load} at start")
    walls: list[float] = []
    cpus: list[float] = []
    per_gate: dict[str, list[float]] = {}
    report: dict = {}
    with tempfile.TemporaryDirectory(prefix="bench-check-head-") as tmp:
        # the whole tree: the envdoc gate scans every root, and a knob read only under tests/ (the
        # command-probe fixtures read VTGATE_PROBE_ARGS) would look stale in a partial snapshot
        root = args.root or snapshot_head(Path(tmp))
        print(f"code under test: {root if args.root else 'engine at HEAD (snapshot)'}")
        for _ in range(args.runs):
            wall, cpu, report = timed_vtgate("check", "--root", str(root), *jobs)
            walls.append(wall)
            cpus.append(cpu)
            for gate in report["gates"]:
                per_gate.setdefault(gate["name"], []).append(gate["seconds"])
    runs = report["probe_runs"]
    counts = ", ".join(f"{n} {status}" for status, n in report["counts"].items())
    print(f"gates: {len(report['gates'])} ({counts}); ok={report['ok']}")
    for gate in report["gates"]:
        if gate["status"] != "green":
            print(f"  {gate['status']}: {gate['name']}: {gate['summary'].splitlines()[0]}")
    print(f"probe runs: {runs['requested']} requested, {runs['run']} run, {runs['shared']} shared")
    print(f"wall: median {statistics.median(walls):.2f} s  (runs: {', '.join(f'{w:.2f}' for w in walls)})")
    print(f"CPU (vtgate + probes): median {statistics.median(cpus):.2f} s; "
          f"/ {os.cpu_count()} cores = {statistics.median(cpus) / (os.cpu_count() or 1):.2f} s")
    print("slowest gates (median seconds of their longest probe run):")
    for name, seconds in sorted(per_gate.items(), key=lambda item: -statistics.median(item[1]))[:6]:
        print(f"  {statistics.median(seconds):6.2f}  {name}")
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"load average {load} at end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
