"""Benchmark the persistent probe worker (issue 13): an engine whose import takes 3 s, gated by a
suite of 12 probe runs over 3 environments, checked with ``worker = true`` and, for comparison, with a
fresh process per run. Target: the worker check's wall time is under 2x (the probe work of the 12
runs + one import per distinct environment).

The engine is made here, in a temporary project: ``slow_engine.py`` sleeps 3 s when imported (a
stand-in for torch + a model load) and then does real numpy work per run (calibrated to ~0.4 s on
this host, measured, not assumed). The suite has 4 invariance gates, each over ``FAKE_MODE`` = a
baseline + 2 values: 4 x 3 = 12 distinct runs over 3 environments (no ``FAKE_MODE``, ``b``, ``c``).

    .venv/bin/python benchmarks/bench_workers.py [--runs 3] [-j N] [--no-write]

Writes its table into docs/own-engine.md between ``<!-- bench-workers:start/end -->``."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import REPO, VTGATE, load_average, write_section

DOC = REPO / "docs" / "own-engine.md"
MARKERS = ("<!-- bench-workers:start -->", "<!-- bench-workers:end -->")
IMPORT_SECONDS = 3.0
TARGET_WORK_SECONDS = 0.4
GATES = 4
ENVIRONMENTS = ["b", "c"]  # plus the baseline, which sets no FAKE_MODE

ENGINE = '''"""A fake heavy engine: 3 s to import, then real numpy work per run."""
import hashlib, os, time
import numpy as np

time.sleep({import_seconds})
with open("imports.log", "a") as log:  # one line per import: the benchmark counts them
    log.write(os.environ.get("FAKE_MODE", "-") + "\\n")
ROUNDS = int(os.environ.get("FAKE_ROUNDS", "1"))


def decode(prompt):
    started = time.perf_counter()
    rng = np.random.default_rng(len(prompt))
    a = rng.standard_normal((256, 256)).astype(np.float32)
    for _ in range(ROUNDS):
        a = np.tanh(a @ a.T / 256.0)
    digest = hashlib.sha256(a.tobytes()).hexdigest()
    return {{"tokens": [int(b) for b in digest[:8].encode()], "digests": {{"out": digest}},
             "metrics": {{"work_seconds": time.perf_counter() - started}}}}
'''
WORKER = '''import slow_engine
from vtgate.probe import serve
serve(lambda prompt: slow_engine.decode(prompt))
'''
ONESHOT = '''import json, os, slow_engine
print(json.dumps(slow_engine.decode(json.loads(os.environ["VTGATE_PROBE_ARGS"])["prompt"])))
'''


def suite(worker: bool) -> str:
    probe = '{ cmd = ["{python}", "worker.py"], worker = true }' if worker else '{ cmd = ["{python}", "oneshot.py"] }'
    gates = [f'[[gate]]\nname = "prompt-{i}"\nkind = "invariance"\nprobe = {probe}\n'
             f'args = {{ prompt = "prompt {i}" }}\ninvariant_over = {{ FAKE_MODE = {json.dumps(ENVIRONMENTS)} }}\n'
             f'compare = ["digests", "tokens"]\n' for i in range(GATES)]
    return '[suite]\nknob_prefixes = ["FAKE_"]\ntimeout = 120\n\n' + "\n".join(gates)


def calibrate(project: Path) -> tuple[int, float]:
    """FAKE_ROUNDS for ~TARGET_WORK_SECONDS of work, and the median work seconds of one run at it
    (in one process, import not counted)."""
    code = ("import os, statistics, sys, time; sys.path.insert(0, '.'); import slow_engine\n"
            "def work(n):\n    slow_engine.ROUNDS = n; return slow_engine.decode('calibrate')['metrics']['work_seconds']\n"
            f"per = statistics.median(work(20) for _ in range(3)) / 20\nn = max(1, round({TARGET_WORK_SECONDS} / per))\n"
            "print(n, statistics.median(work(n) for _ in range(5)))")
    done = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True, check=True)
    rounds, seconds = done.stdout.split()
    return int(rounds), float(seconds)


def timed_check(project: Path, suite_file: str, rounds: int, jobs: list[str]) -> tuple[float, dict]:
    out = project / "report.json"
    (project / "imports.log").unlink(missing_ok=True)
    env = {**os.environ, "FAKE_ROUNDS": str(rounds), "CI": "1"}
    started = time.perf_counter()
    done = subprocess.run([VTGATE, "check", "--suite", suite_file, "--json", str(out), *jobs], cwd=project,
                          env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if not out.exists():
        raise SystemExit(f"vtgate check wrote no report (exit {done.returncode}):\n{done.stderr}")
    report = json.loads(out.read_text())
    if not report["ok"]:
        raise SystemExit(f"vtgate check was not green:\n{done.stdout}\n{done.stderr}")
    return wall, {**report, "imports": len((project / "imports.log").read_text().splitlines())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("-j", "--jobs", type=int, default=None, help="parallel probe runs (default: cores)")
    parser.add_argument("--no-write", action="store_true", help=f"print only; leave {DOC.name} alone")
    args = parser.parse_args(argv)
    jobs = ["-j", str(args.jobs)] if args.jobs is not None else []
    cores = args.jobs or os.cpu_count() or 1
    loads = [load_average()]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {loads[0]} at start", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-workers-") as tmp:
        project = Path(tmp)
        (project / "vtgate.toml").write_text(suite(worker=True))
        (project / "oneshot.toml").write_text(suite(worker=False))
        (project / "worker.py").write_text(WORKER)
        (project / "oneshot.py").write_text(ONESHOT)
        (project / "slow_engine.py").write_text(ENGINE.format(import_seconds=0))
        rounds, work = calibrate(project)
        (project / "slow_engine.py").write_text(ENGINE.format(import_seconds=IMPORT_SECONDS))
        runs = GATES * (1 + len(ENVIRONMENTS))
        environments = 1 + len(ENVIRONMENTS)
        ideal = runs * work + environments * IMPORT_SECONDS
        print(f"work per run {work:.2f} s (FAKE_ROUNDS={rounds}); {runs} runs over {environments} environments; "
              f"probe work + one import per environment = {ideal:.1f} s; target < {2 * ideal:.1f} s", flush=True)
        walls: dict[str, list[float]] = {"worker": [], "oneshot": []}
        imports: dict[str, int] = {}
        for index in range(args.runs):
            for mode, suite_file in (("worker", "vtgate.toml"), ("oneshot", "oneshot.toml")):
                wall, report = timed_check(project, suite_file, rounds, jobs)
                walls[mode].append(wall)
                imports[mode] = report["imports"]
                print(f"run {index + 1} {mode}: {wall:.1f} s, {report['probe_runs']['run']} probe runs, "
                      f"{report['imports']} imports", flush=True)
            loads.append(load_average())
    worker, oneshot = statistics.median(walls["worker"]), statistics.median(walls["oneshot"])
    verdict = "met" if worker < 2 * ideal else "NOT met"
    text = "\n".join([
        "| measure | value |",
        "|---|---|",
        f"| engine | {IMPORT_SECONDS:.0f} s import, {work:.2f} s of numpy work per run (median of 5, measured) |",
        f"| suite | {GATES} invariance gates x (baseline + {len(ENVIRONMENTS)} `FAKE_MODE` values) = "
        f"{runs} probe runs over {environments} environments, `-j {cores}` |",
        f"| probe work + one import per environment | {runs} x {work:.2f} + {environments} x {IMPORT_SECONDS:.0f} "
        f"= {ideal:.1f} s; target < 2x = {2 * ideal:.1f} s |",
        f"| `worker = true`, median of {args.runs} | **{worker:.1f} s** ({', '.join(f'{w:.1f}' for w in walls['worker'])})"
        f" = {worker / ideal:.2f}x, {imports['worker']} imports: target {verdict} |",
        f"| a fresh process per run, median of {args.runs} | {oneshot:.1f} s "
        f"({', '.join(f'{w:.1f}' for w in walls['oneshot'])}) = {oneshot / ideal:.2f}x, {imports['oneshot']} imports |",
        f"| load average (1/5/15 min) | {loads[0]} at start, {loads[-1]} at end |",
    ])
    print(text)
    if not args.no_write:
        write_section(DOC, text, *MARKERS)
        print(f"\nwritten to {DOC}")
    return 0 if worker < 2 * ideal else 1


if __name__ == "__main__":
    raise SystemExit(main())
