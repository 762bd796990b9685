"""Benchmark ``vtgate mutate --code`` on the engine's own suite (issue 11: a full run under 10 minutes
on this 2-core machine, median of 3).

Two measurements:

- ``full`` (default): the installed ``vtgate mutate --code --no-cache -j 2 --json`` on a snapshot of
  HEAD, ``--runs`` times, with the wall time, the CPU seconds of vtgate and every probe process (a
  number that does not depend on what else the machine runs), and the load average before and after
  each run. ``--budget N`` measures a fixed sample instead and extrapolates to every generated mutant,
  labelled as such.
- ``--sweep``: the cost of one mutant that every gate reaches (a survivor pays for all of them): the
  whole green suite run on a patched copy, with every probe in a fresh interpreter and with the
  copy's fork servers, CPU seconds each, ``--runs`` times.

    .venv/bin/python benchmarks/bench_code_mutants.py [--runs 3] [--budget N] [--seed S] [--no-write]
    .venv/bin/python benchmarks/bench_code_mutants.py --sweep [--runs 3]

The table is printed and, for ``full``, written into docs/mutate.md between the code-bench markers.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import REPO, load_average, snapshot_head, timed_vtgate, write_section

DOC = REPO / "docs" / "mutate.md"
START, END = "<!-- bench-code:start -->", "<!-- bench-code:end -->"
TARGET = 600.0
# A mutant every gate reaches and none kills (possibly equivalent: no observation changes), for --sweep.
SWEEP_MUTANT = "engine/vtengine/engine.py:127:19:reassociate:0"


def head() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout.strip()


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def full(args: argparse.Namespace) -> int:
    budget = ["--budget", str(args.budget), "--seed", str(args.seed)] if args.budget else []
    walls: list[float] = []
    cpus: list[float] = []
    loads: list[tuple[str, str]] = []
    report: dict = {}
    with tempfile.TemporaryDirectory(prefix="bench-code-head-") as tmp:
        root = snapshot_head(Path(tmp))
        for index in range(args.runs):
            before = load_average()
            wall, cpu, report = timed_vtgate("mutate", "--code", "--no-cache", "-q", "-j", "2", "--root", str(root),
                                             *budget)
            after = load_average()
            walls.append(wall)
            cpus.append(cpu)
            loads.append((before, after))
            print(f"run {index + 1}: {wall:.1f} s wall, {cpu:.1f} s CPU, {report['sampled']} mutants, "
                  f"score {report['score']}, load {before} -> {after}", flush=True)
    cores = os.cpu_count() or 1
    sampled, generated = report["sampled"], report["generated"]
    median_wall, median_cpu = statistics.median(walls), statistics.median(cpus)
    lines = [
        f"`benchmarks/bench_code_mutants.py`, {len(walls)} run(s) of `vtgate mutate --code --no-cache -j 2"
        f"{' --budget ' + str(args.budget) + ' --seed ' + str(args.seed) if args.budget else ''}` against the tree "
        f"at HEAD ({head()}, a snapshot), {cores} cores shared with other work:",
        "",
        "| measure | value |",
        "|---|---|",
        f"| mutants | {sampled} judged of {generated} generated; counts {report['counts']} |",
        f"| wall, median of {len(walls)} | **{median_wall:.1f} s** ({', '.join(f'{w:.1f}' for w in walls)}) |",
        f"| CPU of vtgate + all probes, median | {median_cpu:.1f} s, i.e. ~{median_cpu / cores:.0f} s of wall on "
        f"{cores} idle cores |",
        f"| load average (1/5/15 min), before -> after each run | {'; '.join(f'{a} -> {b}' for a, b in loads)} |",
    ]
    if args.budget:
        scale = generated / sampled
        lines.append(f"| **extrapolated** to all {generated} mutants (x{scale:.1f}, fixed costs included: an "
                     f"over-estimate) | {median_wall * scale:.0f} s wall, {median_cpu * scale:.0f} s CPU |")
    lines.append(f"| target | a full run under {TARGET:.0f} s on 2 cores |")
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_section(DOC, text, START, END)
        print(f"\nwritten to {DOC}")
    return 0


def sweep(args: argparse.Namespace) -> int:
    """One all-reaching mutant's gates on a patched copy, fresh interpreters vs fork servers."""
    sys.path.insert(0, str(REPO / "gates"))
    from vtgate.mutate.codemutants import generate
    from vtgate.mutate.coderun import load_scope
    from vtgate.mutate.copies import Scratch
    from vtgate.run.check import judge_check, plan_check, resolve_pins, shared_runs
    from vtgate.suite.load import load_suite, select_gates

    suite = load_suite(REPO / "goldens" / "gates.toml")
    specs = [s for s in select_gates(suite, None, None) if s.kind != "envdoc"]
    scope = load_scope(suite)
    mutant = next(m for m in generate(REPO, [SWEEP_MUTANT.split(":")[0]]) if m.ident == SWEEP_MUTANT)
    pins = resolve_pins(specs, suite)
    rows: dict[str, list[float]] = {"fresh interpreter per run": [], "fork server per copy": []}
    with Scratch() as scratch, shared_runs(suite, jobs=2) as shared:
        assert scratch.path is not None
        patch = scratch.path / "mutant.patch"
        patch.write_text(mutant.diff, encoding="utf-8")
        for index in range(args.runs):
            for label in rows:
                copy = scratch.patched_copy(REPO, f"copy-{index}-{len(rows[label])}-{label[:5]}", patch, mutant.ident)
                env = scope.env_for(copy)
                if label.startswith("fork"):
                    shared.serve(copy)
                cpu0, wall0 = children_cpu(), time.perf_counter()
                for spec in specs:  # one gate at a time, as a mutant's gates run
                    judge_check(plan_check([spec], suite, copy, shared, pins=pins, extra_env=env), [spec], suite,
                                shared, pins)
                shared.release(copy)
                shared.workers.close()  # the zygote too: its servers' CPU is counted once it is reaped
                cpu, wall = children_cpu() - cpu0, time.perf_counter() - wall0
                rows[label].append(cpu)
                print(f"{label}: {cpu:.1f} s CPU, {wall:.1f} s wall, load {load_average()}", flush=True)
    print(f"\nmutant {mutant.ident} ({mutant.description}), {len(specs)} gates, {shared.distinct // (2 * args.runs)} distinct runs a copy:")
    for label, cpus in rows.items():
        print(f"| {label} | {statistics.median(cpus):.1f} s CPU (median of {len(cpus)}: "
              f"{', '.join(f'{c:.1f}' for c in cpus)}) |")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--budget", type=int, default=None, help="a fixed sample, extrapolated (labelled so)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--sweep", action="store_true", help="one all-reaching mutant: fresh vs fork server")
    parser.add_argument("--no-write", action="store_true", help=f"print only; leave {DOC.name} alone")
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load_average()} at start",
          flush=True)
    return sweep(args) if args.sweep else full(args)


if __name__ == "__main__":
    raise SystemExit(main())
