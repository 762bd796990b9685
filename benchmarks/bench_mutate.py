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
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VTGATE = str(Path(sys.executable).parent / "vtgate")
DOC = REPO / "docs" / "mutate.md"
START, END = "<!-- bench:start -->", "<!-- bench:end -->"
BUDGET = 300.0


def load() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def one_run(root: Path, jobs: int | None) -> tuple[float, float, dict]:
    """(wall seconds, CPU seconds of vtgate and its probes, JSON report)."""
    with tempfile.TemporaryDirectory(prefix="bench-mutate-") as tmp:
        out = Path(tmp) / "report.json"
        command = [VTGATE, "mutate", "-q", "--json", str(out), "--root", str(root)]
        if jobs is not None:
            command += ["-j", str(jobs)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if not out.exists():
            raise SystemExit(f"vtgate mutate wrote no report (exit {done.returncode}):\n{done.stderr}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return wall, cpu, json.loads(out.read_text())


def snapshot(destination: Path) -> Path:
    archive = subprocess.run(["git", "archive", "--format=tar", "HEAD"], cwd=REPO, capture_output=True,
                             check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(destination, filter="data")
    return destination


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


def write_doc(text: str) -> None:
    doc = DOC.read_text(encoding="utf-8")
    if START not in doc or END not in doc:
        raise SystemExit(f"{DOC} has no {START} ... {END} markers")
    before, rest = doc.split(START, 1)
    _, after = rest.split(END, 1)
    DOC.write_text(f"{before}{START}\n{text}\n{END}{after}", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--root", type=Path, default=None, help="tree under test (default: a snapshot of HEAD)")
    parser.add_argument("-j", "--jobs", type=int, default=None, help="parallel probe runs (default: cores)")
    parser.add_argument("--no-write", action="store_true", help=f"print only; leave {DOC.name} alone")
    args = parser.parse_args(argv)
    loads = [load()]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {loads[0]} at start", flush=True)
    walls: list[float] = []
    cpus: list[float] = []
    report: dict = {}
    with tempfile.TemporaryDirectory(prefix="bench-mutate-head-") as tmp:
        root = args.root or snapshot(Path(tmp))
        what = f"`{args.root}`" if args.root else f"the tree at HEAD ({head()}, a snapshot)"
        for index in range(args.runs):
            wall, cpu, report = one_run(root, args.jobs)
            walls.append(wall)
            cpus.append(cpu)
            loads.append(load())
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
        write_doc(text)
        print(f"\nwritten to {DOC}")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
