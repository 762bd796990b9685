"""Benchmark of ``vtbisect run`` against ``git bisect run`` on generated histories: same command, same
per-test cost (a Python script that sleeps, then checks a file), medians over several histories.

Measured:
- evaluations for one culprit (target: <= ceil(log2 N) + 1) and wall time, -j 1;
- rounds with -j 2 (target: <= ceil(log3 N) + 1) and wall time (target: <= 0.7x git bisect run's);
- a repeated run (target: 0 evaluations, < 1 s plus start-up);
- accuracy under flakiness: histories where a good commit judges bad 10% of the time, right culprit
  with ``--repeat 3`` and with ``--repeat 3 --confirm 3`` (target >= 19/20) vs git bisect run.

The table is printed and written into docs/bisect.md between the bench markers. Not a test: no
assertions; the targets are listed beside the numbers.

    .venv/bin/python benchmarks/bench_bisect.py [--n 100] [--histories 5] [--cost 0.2 --cost 2]
        [--flaky 20] [--flaky-runs 3] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchlib import write_section

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "bisect.md"
VTBISECT = [sys.executable, "-m", "vtbisect"]

JUDGE = """\
import os, pathlib, random, sys, time
time.sleep(float(os.environ.get("BENCH_COST", "0.2")))
with open(os.environ["BENCH_COUNT"], "a") as handle:
    handle.write("x")
bad = pathlib.Path("state.txt").read_text().strip() == "bad"
if not bad and random.random() < float(os.environ.get("BENCH_FLAKE", "0")):
    sys.exit(1)
sys.exit(1 if bad else 0)
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout.strip()


def make_history(path: Path, n: int, culprit: int) -> tuple[str, str]:
    """GOOD, then ``n`` commits; the one at ``culprit`` (0-based) turns state.txt bad."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "bench@example.com")
    git(path, "config", "user.name", "bench")
    (path / "state.txt").write_text("good\n")
    (path / "notes.txt").write_text("0\n")
    git(path, "add", "-A")
    git(path, "commit", "-qm", "good")
    good = git(path, "rev-parse", "HEAD")
    for i in range(n):
        (path / "notes.txt").write_text(f"{i + 1}\n")
        if i == culprit:
            (path / "state.txt").write_text("bad\n")
        git(path, "commit", "-qam", f"commit {i}")
    return good, git(path, "rev-parse", "HEAD")


@dataclass(frozen=True)
class Result:
    culprit: str | None
    evaluations: int
    rounds: int
    seconds: float
    cpu: float  # CPU seconds of the process tree (user + system of every waited-for descendant)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def counted_env(count_file: Path, cost: float, flake: float) -> dict[str, str]:
    count_file.write_text("")
    return {**os.environ, "BENCH_COUNT": str(count_file), "BENCH_COST": str(cost), "BENCH_FLAKE": str(flake),
            "NO_COLOR": "1"}


def git_bisect_run(repo: Path, good: str, bad: str, script: Path, env: dict[str, str]) -> Result:
    """``git bisect run`` in a clone (it checks out in the working tree, which vtbisect never does)."""
    clone = repo.parent / f"{repo.name}-gitclone"
    if clone.exists():
        shutil.rmtree(clone)
    git(repo.parent, "clone", "-q", str(repo), str(clone))
    git(clone, "bisect", "start", bad, good)
    start, cpu = time.perf_counter(), children_cpu()
    done = subprocess.run(["git", "-C", str(clone), "bisect", "run", sys.executable, str(script)],
                          capture_output=True, text=True, env=env)
    seconds, cpu = time.perf_counter() - start, children_cpu() - cpu
    culprit = None
    for line in done.stdout.splitlines():
        if line.endswith("is the first bad commit"):
            culprit = line.split()[0]
    count = len(Path(env["BENCH_COUNT"]).read_text())
    return Result(culprit, count, count, seconds, cpu)


def vtbisect_run(repo: Path, good: str, script: Path, env: dict[str, str], *options: str) -> Result:
    out = repo.parent / "vtbisect.json"
    start, cpu = time.perf_counter(), children_cpu()
    subprocess.run([*VTBISECT, "run", f"{good}..HEAD", "-q", "--json", str(out), *options, "--",
                    sys.executable, str(script)], cwd=repo, capture_output=True, text=True, env=env)
    seconds, cpu = time.perf_counter() - start, children_cpu() - cpu
    if not out.exists():
        return Result(None, len(Path(env["BENCH_COUNT"]).read_text()), 0, seconds, cpu)
    record = json.loads(out.read_text())
    out.unlink()
    culprit = record["culprits"][0]["commit"] if record["culprits"] else None
    return Result(culprit, record["evaluations"], record["rounds"], seconds, cpu)


def startup_seconds() -> float:
    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([*VTBISECT, "--version"], capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def speed(work: Path, script: Path, n: int, histories: int, cost: float, rng: random.Random) -> dict[str, object]:
    rows: dict[str, list[Result]] = {"git": [], "j1": [], "j2": [], "again": []}
    for h in range(histories):
        culprit = rng.randrange(n)
        repo = work / f"speed-{cost}-{h}"
        good, bad = make_history(repo, n, culprit)
        truth = git(repo, "rev-parse", f"HEAD~{n - 1 - culprit}")
        count = work / "count"
        rows["git"].append(git_bisect_run(repo, good, bad, script, counted_env(count, cost, 0)))
        rows["j1"].append(vtbisect_run(repo, good, script, counted_env(count, cost, 0), "--no-cache"))
        rows["j2"].append(vtbisect_run(repo, good, script, counted_env(count, cost, 0), "-j", "2"))
        rows["again"].append(vtbisect_run(repo, good, script, counted_env(count, cost, 0), "-j", "2"))
        for name, results in rows.items():
            assert results[-1].culprit == truth, f"{name} missed the culprit on history {h}"
        shutil.rmtree(repo)
    return {name: results for name, results in rows.items()}


FLAKY_RUNS = {
    "git": (),
    "vt": ("--no-cache",),
    "vt_repeat": ("--no-cache", "--repeat", "3"),
    "vt_confirm": ("--no-cache", "--confirm", "3"),
    "vt_repeat_confirm": ("--no-cache", "--repeat", "3", "--confirm", "3"),
}


def flakiness(work: Path, script: Path, n: int, histories: int, cost: float, rng: random.Random,
              tag: str) -> dict[str, tuple[int, int]]:
    """Right culprits and judgements spent per way of running, over ``histories`` fresh histories."""
    right = dict.fromkeys(FLAKY_RUNS, 0)
    judgements = dict.fromkeys(FLAKY_RUNS, 0)
    for h in range(histories):
        culprit = rng.randrange(n)
        repo = work / f"flaky-{tag}-{h}"
        good, bad = make_history(repo, n, culprit)
        truth = git(repo, "rev-parse", f"HEAD~{n - 1 - culprit}")
        count = work / "count"
        for name, options in FLAKY_RUNS.items():
            env = counted_env(count, cost, 0.10)
            if name == "git":
                result = git_bisect_run(repo, good, bad, script, env)
            else:
                result = vtbisect_run(repo, good, script, env, *options)
            right[name] += result.culprit == truth
            judgements[name] += len(count.read_text())
        shutil.rmtree(repo)
    return {name: (right[name], judgements[name]) for name in FLAKY_RUNS}


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def speed_table(n: int, histories: int, speed_rows: dict, startup: float, cost: float, load_after: str) -> list[str]:
    def med(name: str, attr: str) -> float:
        return statistics.median(getattr(r, attr) for r in speed_rows[name])

    def worst(name: str, attr: str) -> int:
        return max(getattr(r, attr) for r in speed_rows[name])

    log2 = math.ceil(math.log2(n))
    log3 = math.ceil(math.log(n, 3) - 1e-9)
    git_wall = med("git", "seconds")

    def row(label: str, name: str, rounds: str, target: str) -> str:
        return (f"| {label} | {med(name, 'evaluations'):.0f} [{worst(name, 'evaluations')}] | {rounds} | "
                f"{med(name, 'seconds'):.2f} | {med(name, 'seconds') / git_wall:.2f}x | {med(name, 'cpu'):.2f} | {target} |")

    return [
        f"**Per-test cost {cost} s**, N = {n} candidates, {histories} histories (culprit at a random position); "
        f"load average after these runs {load_after}:",
        "",
        "| run | evaluations | rounds | wall (s) | vs git bisect run | CPU (s) | target |",
        "|---|---|---|---|---|---|---|",
        row("git bisect run (in a clone)", "git", "-", "-"),
        row("vtbisect run -j 1 --no-cache", "j1", f"{med('j1', 'rounds'):.0f}",
            f"evaluations <= ceil(log2 N)+1 = {log2 + 1}"),
        row("vtbisect run -j 2 (empty cache)", "j2", f"{med('j2', 'rounds'):.0f} [{worst('j2', 'rounds')}]",
            f"rounds <= ceil(log3 N)+1 = {log3 + 1}; wall <= 0.70x"),
        row("vtbisect run -j 2, repeated", "again", f"{med('again', 'rounds'):.0f}",
            f"0 evaluations, < 1 s + start-up ({startup:.2f} s)"),
        "",
    ]


def table(n: int, flaky_n: int, speeds: dict[tuple[int, int, float], dict], flaky_runs: list[dict[str, tuple[int, int]]],
          startup: float, flaky_cost: float, loads: dict[str, str]) -> str:
    def flaky_cell(name: str) -> str:
        rights = [run[name][0] for run in flaky_runs]
        spread = f" ({', '.join(map(str, rights))})" if len(rights) > 1 else ""
        return f"{statistics.median(rights):g}/{flaky_n}{spread}"

    def flaky_judgements(name: str) -> str:
        return f"{statistics.median(run[name][1] for run in flaky_runs):g}"

    need = math.ceil(flaky_n * 19 / 20)
    lines = [
        f"Generated linear histories; the test is a Python script that sleeps for the per-test cost, then checks "
        f"a file (the same script for both tools); medians over the histories, worst case in brackets. "
        f"{platform.system()} {platform.machine()}, Python {platform.python_version()}, {os.cpu_count()} cores "
        f"shared with other jobs; load average (1/5/15 min) {loads['start']} at the start, {loads['end']} at the "
        f"end; vtbisect start-up (`python -m vtbisect --version`) {startup:.2f} s. CPU = user + system seconds of "
        "the whole process tree (test scripts included).",
        "",
    ]
    for (size, histories, cost), rows in speeds.items():
        lines += speed_table(size, histories, rows, startup, cost, loads[f"speed-{size}-{cost}"])
    if flaky_runs:
        lines += [
            f"**Flakiness**: {flaky_n} histories of N = {n} per run, {len(flaky_runs)} run(s) on fresh histories, "
            f"per-test cost {flaky_cost} s; each judgement of a good commit says bad with probability 0.10 (bad "
            f"commits are always bad). Right culprit out of {flaky_n} (median; each run's count in brackets) and "
            "the median of judgements spent per run (all histories):",
            "",
            "| run | right culprit | judgements | target |",
            "|---|---|---|---|",
            f"| git bisect run | {flaky_cell('git')} | {flaky_judgements('git')} | (issue: about 15/20) |",
            f"| vtbisect run | {flaky_cell('vt')} | {flaky_judgements('vt')} | - |",
            f"| vtbisect run --repeat 3 (adaptive: stops at 2 agreeing) | {flaky_cell('vt_repeat')} | "
            f"{flaky_judgements('vt_repeat')} | >= {need}/{flaky_n} |",
            f"| vtbisect run --confirm 3 (judge once; re-judge culprit and parent, adaptive 2 of 3) | "
            f"{flaky_cell('vt_confirm')} | {flaky_judgements('vt_confirm')} | >= {need}/{flaky_n} |",
            f"| vtbisect run --repeat 3 --confirm 3 | {flaky_cell('vt_repeat_confirm')} | "
            f"{flaky_judgements('vt_repeat_confirm')} | >= {need}/{flaky_n} |",
        ]
    return "\n".join(lines).rstrip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--histories", type=int, default=5)
    parser.add_argument("--flaky", type=int, default=20)
    parser.add_argument("--flaky-runs", type=int, default=3, help="repeat the flakiness set on fresh histories")
    parser.add_argument("--cost", type=float, action="append", help="per-test cost(s) in s (default: 0.2 and 2)")
    parser.add_argument("--flaky-cost", type=float, default=0.05)
    parser.add_argument("--large-n", type=int, default=1000, help="one more speed table at the largest cost (0: off)")
    parser.add_argument("--large-histories", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    loads = {"start": load()}
    with tempfile.TemporaryDirectory(prefix="bench-bisect-") as tmp:
        work = Path(tmp)
        script = work / "judge.py"
        script.write_text(JUDGE)
        startup = startup_seconds()
        speeds = {}
        costs = args.cost or [0.2, 2.0]
        plan = [(args.n, args.histories, cost) for cost in costs]
        if args.large_n:
            plan.append((args.large_n, args.large_histories, max(costs)))
        for size, histories, cost in plan:
            speeds[size, histories, cost] = speed(work, script, size, histories, cost, rng)
            loads[f"speed-{size}-{cost}"] = load()
            print("\n".join(speed_table(size, histories, speeds[size, histories, cost], startup, cost,
                                         loads[f"speed-{size}-{cost}"])), flush=True)
        flaky_runs = []
        for r in range(args.flaky_runs):
            flaky_runs.append(flakiness(work, script, args.n, args.flaky, args.flaky_cost, rng, str(r)))
            print(f"flakiness run {r + 1}: {flaky_runs[-1]} (load {load()})", flush=True)
        loads["end"] = load()
    text = table(args.n, args.flaky, speeds, flaky_runs, startup, args.flaky_cost, loads)
    print(text)
    if not args.no_write:
        write_section(DOC, text)
        print(f"\nwritten to {DOC}")


if __name__ == "__main__":
    main()
