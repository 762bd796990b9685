"""Benchmark ``vtgate mutate`` on the engine's own suite (issue 6: the full matrix under 5 minutes on
this 2-core machine).

Runs the installed ``vtgate mutate --json`` (the real command: declared mutations, the engine's arm
mutations and every built-in control; probes in subprocesses, patched throw-away copies) several
times and reports the median wall time, every run's time, the CPU seconds spent (vtgate plus every
probe process: a number that does not depend on what else the machine is doing), the host's load
average, and how many probe runs the matrix requested, ran and shared. The table is printed and
written into docs/mutate.md between the bench markers.

    .venv/bin/python benchmarks/bench_mutate.py [--runs 3] [--root DIR] [-j N] [--no-write]

By default the code under test is a snapshot of the whole tree as committed at HEAD (``git archive``:
the env-doc gate reads every folder), so edits in the working tree during the benchmark cannot trip
the stale guard; the suite and its goldens are the working tree's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchlib import REPO, load_average, snapshot_head, timed_vtgate, write_section

DOC = REPO / "docs" / "mutate.md"
BUDGET = 300.0


def head() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout.strip()


def table(walls: list[float], cpus: list[float], report: dict, loads: list[str], jobs: int | None,
          what: str) -> str:
    runs = report["probe_runs"]
    mutations = report["mutations"]
    by_origin: dict[str, int] = {}
    for mutation in mutations:
        by_origin[mutation["origin"]] = by_origin.get(mutation["origin"], 0) + 1
    run_mutations = sum(1 for m in mutations if m["kind"] in ("env", "patch") or
                        (m["kind"] == "auto" and m["origin"] == "arm"))
    met = sum(1 for m in mutations if m["met"])
    median = statistics.median(walls)
    cores = os.cpu_count() or 1
    lines = [
        f"`benchmarks/bench_mutate.py`, {len(walls)} runs of the full matrix against {what}, "
        f"`-j` {jobs or cores} on {cores} cores:",
        "",
        "| measure | value |",
        "|---|---|",
        f"| gates | {len(report['kills'])} |",
        f"| mutations | {len(mutations)}: {by_origin.get('declared', 0)} declared, {by_origin.get('arm', 0)} "
        f"arm-default, {by_origin.get('control', 0)} built-in controls; {met} met, {len(report['vacuous'])} vacuous, "
        f"ok = {str(report['ok']).lower()} |",
        f"| probe runs | {runs['requested']} requested, {runs['run']} run, **{runs['shared']} shared** "
        f"(baseline + {run_mutations} run mutations; pin mutations and controls run nothing) |",
        f"| wall, median of {len(walls)} | **{median:.1f} s** ({', '.join(f'{w:.1f}' for w in walls)}); "
        f"budget {BUDGET:.0f} s |",
        f"| CPU of vtgate + all probes | {statistics.median(cpus):.1f} s, i.e. ~{statistics.median(cpus) / cores:.0f} s "
        f"of wall on {cores} idle cores |",
        f"| load average (1/5/15 min) | {loads[0]} at start, {loads[-1]} at end |",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--root", type=Path, default=None, help="tree under test (default: a snapshot of HEAD)")
    parser.add_argument("-j", "--jobs", type=int, default=None, help="parallel probe runs (default: cores)")
    parser.add_argument("--no-write", action="store_true", help=f"print only; leave {DOC.name} alone")
    args = parser.parse_args(argv)
    jobs = ["-j", str(args.jobs)] if args.jobs is not None else []
    loads = [load_average()]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {loads[0]} at start", flush=True)
    walls: list[float] = []
    cpus: list[float] = []
    report: dict = {}
    with tempfile.TemporaryDirectory(prefix="bench-mutate-head-") as tmp:
        root = args.root or snapshot_head(Path(tmp))
        what = f"`{args.root}`" if args.root else f"the tree at HEAD ({head()}, a snapshot)"
        for index in range(args.runs):
            wall, cpu, report = timed_vtgate("mutate", "-q", "--root", str(root), *jobs)
            walls.append(wall)
            cpus.append(cpu)
            loads.append(load_average())
            print(f"run {index + 1}: {wall:.1f} s wall, {cpu:.1f} s CPU, exit {report['exit_code']}, "
                  f"load {loads[-1]}", flush=True)
    for problem in report.get("errors", []) + [f"vacuous: {g}" for g in report["vacuous"]]:
        print(f"  {problem}")
    for mutation in report["mutations"]:
        if not mutation["met"]:
            print(f"  UNMET {mutation['name']}: {'; '.join(mutation['unmet'])}")
    text = table(walls, cpus, report, loads, args.jobs, what)
    print(text)
    if not args.no_write:
        write_section(DOC, text)
        print(f"\nwritten to {DOC}")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
