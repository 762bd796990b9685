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

    .venv/bin/python benchmarks/bench_bisect.py [--n 100] [--histories 5] [--flaky 20] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "bisect.md"
START, END = "<!-- bench:start -->", "<!-- bench:end -->"
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
    start = time.perf_counter()
    done = subprocess.run(["git", "-C", str(clone), "bisect", "run", sys.executable, str(script)],
                          capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    culprit = None
    for line in done.stdout.splitlines():
        if line.endswith("is the first bad commit"):
            culprit = line.split()[0]
    count = len(Path(env["BENCH_COUNT"]).read_text())
    return Result(culprit, count, count, seconds)


def vtbisect_run(repo: Path, good: str, script: Path, env: dict[str, str], *options: str) -> Result:
    out = repo.parent / "vtbisect.json"
    start = time.perf_counter()
    subprocess.run([*VTBISECT, "run", f"{good}..HEAD", "-q", "--json", str(out), *options, "--",
                    sys.executable, str(script)], cwd=repo, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if not out.exists():
        return Result(None, len(Path(env["BENCH_COUNT"]).read_text()), 0, seconds)
    record = json.loads(out.read_text())
    out.unlink()
    culprit = record["culprits"][0]["commit"] if record["culprits"] else None
    return Result(culprit, record["evaluations"], record["rounds"], seconds)


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
        repo = work / f"speed-{h}"
        good, bad = make_history(repo, n, culprit)
        truth = git(repo, "rev-parse", f"HEAD~{n - 1 - culprit}")
        count = work / "count"
        rows["git"].append(git_bisect_run(repo, good, bad, script, counted_env(count, cost, 0)))
        rows["j1"].append(vtbisect_run(repo, good, script, counted_env(count, cost, 0), "--no-cache"))
        rows["j2"].append(vtbisect_run(repo, good, script, counted_env(count, cost, 0), "-j", "2"))
        rows["again"].append(vtbisect_run(repo, good, script, counted_env(count, cost, 0), "-j", "2"))
        for name, results in rows.items():
            assert results[-1].culprit == truth, f"{name} missed the culprit on history {h}"
    return {name: results for name, results in rows.items()}


def flakiness(work: Path, script: Path, n: int, histories: int, cost: float, rng: random.Random) -> dict[str, int]:
    right = {"git": 0, "vt": 0, "vt_repeat": 0, "vt_repeat_confirm": 0}
    judgements = {k: 0 for k in right}
    for h in range(histories):
        culprit = rng.randrange(n)
        repo = work / f"flaky-{h}"
        good, bad = make_history(repo, n, culprit)
        truth = git(repo, "rev-parse", f"HEAD~{n - 1 - culprit}")
        count = work / "count"
        options = {
            "vt": ("--no-cache",),
            "vt_repeat": ("--no-cache", "--repeat", "3"),
            "vt_repeat_confirm": ("--no-cache", "--repeat", "3", "--confirm", "3"),
        }
        for name in right:
            env = counted_env(count, cost, 0.10)
            if name == "git":
                result = git_bisect_run(repo, good, bad, script, env)
            else:
                result = vtbisect_run(repo, good, script, env, *options[name])
            right[name] += result.culprit == truth
            judgements[name] += len(count.read_text())
    return {**{f"{k}_right": v for k, v in right.items()}, **{f"{k}_judgements": v for k, v in judgements.items()}}


def table(n: int, histories: int, flaky_n: int, speed_rows: dict, flaky: dict, startup: float, cost: float) -> str:
    def med(name: str, attr: str) -> float:
        return statistics.median(getattr(r, attr) for r in speed_rows[name])

    def worst(name: str, attr: str) -> int:
        return max(getattr(r, attr) for r in speed_rows[name])

    log2 = math.ceil(math.log2(n))
    log3 = math.ceil(math.log(n, 3) - 1e-9)
    git_wall = med("git", "seconds")
    lines = [
        f"N = {n} candidates, {histories} histories (culprit at a random position), per-test cost {cost} s "
        f"(a Python script that sleeps, then checks a file); medians, worst case in brackets. "
        f"{platform.system()} {platform.machine()}, Python {platform.python_version()}, {os.cpu_count()} cores, "
        f"vtbisect start-up {startup:.2f} s.",
        "",
        "| run | evaluations | rounds | wall (s) | vs git bisect run | target |",
        "|---|---|---|---|---|---|",
        f"| git bisect run | {med('git', 'evaluations'):.0f} [{worst('git', 'evaluations')}] | - | {git_wall:.2f} | 1.00x | - |",
        f"| vtbisect run -j 1 --no-cache | {med('j1', 'evaluations'):.0f} [{worst('j1', 'evaluations')}] | "
        f"{med('j1', 'rounds'):.0f} | {med('j1', 'seconds'):.2f} | {med('j1', 'seconds') / git_wall:.2f}x | "
        f"evaluations <= ceil(log2 N)+1 = {log2 + 1} |",
        f"| vtbisect run -j 2 | {med('j2', 'evaluations'):.0f} [{worst('j2', 'evaluations')}] | "
        f"{med('j2', 'rounds'):.0f} [{worst('j2', 'rounds')}] | {med('j2', 'seconds'):.2f} | "
        f"{med('j2', 'seconds') / git_wall:.2f}x | rounds <= ceil(log3 N)+1 = {log3 + 1}; wall <= 0.70x |",
        f"| vtbisect run -j 2, repeated | {med('again', 'evaluations'):.0f} [{worst('again', 'evaluations')}] | "
        f"{med('again', 'rounds'):.0f} | {med('again', 'seconds'):.2f} | {med('again', 'seconds') / git_wall:.2f}x | "
        f"0 evaluations, < 1 s + start-up ({startup:.2f} s) |",
        "",
        f"Flakiness: {flaky_n} histories of N = {n}, each judgement of a good commit says bad with probability "
        "0.10 (bad commits are always bad); right culprit out of "
        f"{flaky_n}, and judgements spent in total:",
        "",
        "| run | right culprit | judgements | target |",
        "|---|---|---|---|",
        f"| git bisect run | {flaky['git_right']}/{flaky_n} | {flaky['git_judgements']} | - |",
        f"| vtbisect run | {flaky['vt_right']}/{flaky_n} | {flaky['vt_judgements']} | - |",
        f"| vtbisect run --repeat 3 (adaptive: stops at 2 agreeing) | {flaky['vt_repeat_right']}/{flaky_n} | "
        f"{flaky['vt_repeat_judgements']} | >= 19/{flaky_n} |",
        f"| vtbisect run --repeat 3 --confirm 3 | {flaky['vt_repeat_confirm_right']}/{flaky_n} | "
        f"{flaky['vt_repeat_confirm_judgements']} | >= 19/{flaky_n} |",
    ]
    return "\n".join(lines)


def write_doc(text: str) -> None:
    doc = DOC.read_text(encoding="utf-8")
    if START not in doc or END not in doc:
        raise SystemExit(f"{DOC} has no {START} ... {END} markers")
    head, rest = doc.split(START, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(f"{head}{START}\n{text}\n{END}{tail}", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--histories", type=int, default=5)
    parser.add_argument("--flaky", type=int, default=20)
    parser.add_argument("--cost", type=float, default=0.2)
    parser.add_argument("--flaky-cost", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="bench-bisect-") as tmp:
        work = Path(tmp)
        script = work / "judge.py"
        script.write_text(JUDGE)
        startup = startup_seconds()
        speed_rows = speed(work, script, args.n, args.histories, args.cost, rng)
        flaky = flakiness(work, script, args.n, args.flaky, args.flaky_cost, rng)
    text = table(args.n, args.histories, args.flaky, speed_rows, flaky, startup, args.cost)
    print(text)
    if not args.no_write:
        write_doc(text)
        print(f"\nwritten to {DOC}")


if __name__ == "__main__":
    main()
