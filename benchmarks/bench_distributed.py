"""Benchmark of ``vtbisect run --executor dask`` on localhost: real ``dask scheduler`` and ``dask worker``
processes, a generated history and a judge that sleeps, medians over several runs.

Measured:
- scaling: a ``-j 4`` bisection with 2 s judgements on 2 workers vs 1 worker (one thread each): the
  bisection's own clock (``seconds`` of the JSON record, from the first judgement to the culprit;
  target: 2 workers >= 1.7x faster) and the wall time of the whole command (Python start-up,
  connecting and checking the workers, the bundle included);
- overhead: per judgement, a LocalCluster (``--executor dask``, no scheduler) vs the local executor,
  from the bisection's own clock (``seconds`` of the JSON record: start-up of the cluster excluded,
  reported beside it) over the same steps (target: <= 0.3 s).

- a mutant batch: ``vtgate mutate --code --budget N -j 4`` on the mutfake test engine, each mutant's
  judgement made ~2 s long (the engine sleeps on import), on 2 workers vs 1 worker (one thread each).
  The batch's clock runs from the first mutant judgement's start to the last one's end, as the
  engine's imports in the mutant copies record them (the baseline and coverage, on the client, are
  outside it); target: 2 workers >= 1.7x faster. The whole command's wall time is reported beside it.

The tables are printed and written into docs/distributed.md between the bench markers. Not a test: no
assertions; the targets are listed beside the numbers.

    .venv/bin/python benchmarks/bench_distributed.py [--part all|bisect|mutants] [--runs 3] [--commits 40]
        [--cost 2] [--mutants 12] [--no-write]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from benchlib import load_average, write_section

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "distributed.md"
VTBISECT = [sys.executable, "-m", "vtbisect"]
DASK = [str(Path(sys.executable).parent / "dask")]

JUDGE = """#!/bin/sh
sleep "$VT_BENCH_COST"
test "$(cat value)" -lt "$(cat culprit)"
"""


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def make_history(path: Path, commits: int, culprit: int) -> None:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "bench@example.com")
    git(path, "config", "user.name", "Bench")
    (path / "judge.sh").write_text(JUDGE)
    (path / "judge.sh").chmod(0o755)
    (path / "culprit").write_text(f"{culprit}\n")
    for value in range(commits):
        (path / "value").write_text(f"{value}\n")
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", f"value {value}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def cluster(workers: int, root: Path, env: dict[str, str] | None = None) -> Iterator[str]:
    """A scheduler and ``workers`` one-thread workers on localhost; yields the scheduler's address."""
    from distributed import Client

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    processes = [subprocess.Popen([*DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)]
    try:
        for index in range(workers):
            worker_env = {**os.environ, **(env or {}), "VT_DASK_WORKER_CACHE": str(root / f"worker-{index}")}
            processes.append(subprocess.Popen(
                [*DASK, "worker", address, "--name", f"w{index}", "--nthreads", "1", "--no-dashboard"], env=worker_env,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        with Client(address, timeout=120) as client:
            client.wait_for_workers(workers, timeout=120)
        yield address
    finally:
        for process in processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def bisect(repo: Path, cost: float, args: list[str]) -> tuple[float, dict]:
    """(wall seconds of the whole command, the JSON record)."""
    out = repo.parent / "record.json"
    started = time.perf_counter()
    span = int((repo / "value").read_text())  # the history's last value: HEAD~span is its first commit
    done = subprocess.run([*VTBISECT, "run", f"HEAD~{span}..HEAD", "--no-cache", "--json", str(out), *args,
                           "--", "./judge.sh"], cwd=repo,
                          env={**os.environ, "VT_BENCH_COST": str(cost)}, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 1:
        raise SystemExit(f"vtbisect exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return wall, json.loads(out.read_text())


MUTFAKE = ROOT / "tests" / "mutate" / "fake" / "mutfake"
VTGATE = str(Path(sys.executable).parent / "vtgate")
MUTANT_SUITE = """\
[suite]
pythonpath = ["src"]
source_tree = "src/mutfake"
timeout = 120

[mutate.code]
paths = ["src/mutfake"]
exclude = ["src/mutfake/_cost.py"]

[[gate]]
name = "strict-hi"
kind = "golden"
mode = "strict"
probe = "mutfake:generate"
args = { prompt = "hi", tokens = 12 }
"""
# Imported first by the engine: a judgement's cost, and when it ran in which copy (for the batch clock).
COST = """\
import os
import time
from pathlib import Path

_started = time.time()
time.sleep(float(os.environ.get("BENCH_COST", "0")))
if os.environ.get("BENCH_LOG"):
    with open(os.environ["BENCH_LOG"], "a", encoding="utf-8") as _log:
        _log.write(f"{Path(__file__).resolve().parents[2].name} {_started} {time.time()}\\n")
"""


def make_mutant_project(path: Path) -> None:
    """The mutfake test engine with a cost module, its suite blessed (without the cost) and committed."""
    shutil.copytree(MUTFAKE, path / "src" / "mutfake", ignore=shutil.ignore_patterns("__pycache__"))
    (path / "src" / "mutfake" / "_cost.py").write_text(COST)
    engine = path / "src" / "mutfake" / "__init__.py"
    engine.write_text(engine.read_text().replace(
        "from pathlib import Path\n", "from pathlib import Path\n\nfrom mutfake import _cost  # noqa: F401\n", 1))
    (path / ".gitignore").write_text("__pycache__/\n")
    (path / "vtgate.toml").write_text(MUTANT_SUITE)
    git(path, "init", "-q")
    git(path, "config", "user.email", "bench@example.com")
    git(path, "config", "user.name", "Bench")
    subprocess.run([VTGATE, "bless", "strict-hi", "--reason", "bench"], cwd=path, check=True, capture_output=True)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "engine")


def mutant_batch(project: Path, budget: int, address: str, log: Path, cost: float) -> tuple[float, float, int]:
    """(wall seconds of the whole command, seconds of the batch, mutants judged on the cluster)."""
    log.unlink(missing_ok=True)
    started = time.perf_counter()
    done = subprocess.run([VTGATE, "mutate", "--code", "--no-cache", "--budget", str(budget), "--seed", "1", "-j", "4",
                           "--json", "-", "-q", "--scheduler", address], cwd=project, capture_output=True, text=True,
                          env={**os.environ, "BENCH_COST": str(cost), "BENCH_LOG": str(log)})
    wall = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"vtgate mutate exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    report = json.loads(done.stdout)
    spans = [line.split() for line in log.read_text().splitlines() if line.startswith("m-")]
    batch = max(float(end) for _, _, end in spans) - min(float(start) for _, start, _ in spans)
    return wall, batch, sum(1 for m in report["mutants"] if m["judged_by"])


def mutant_rows(options: argparse.Namespace, root: Path) -> list[str]:
    project = root / "mutants" / "project"
    make_mutant_project(project)
    log = root / "mutants" / "runs.log"
    walls: dict[int, list[float]] = {}
    batches: dict[int, list[float]] = {}
    judged: dict[int, list[int]] = {}
    for workers in (1, 2):
        env = {"BENCH_COST": str(options.cost), "BENCH_LOG": str(log)}
        with cluster(workers, root / f"mutant-cluster-{workers}", env) as address:
            for _ in range(options.runs):
                wall, batch, count = mutant_batch(project, options.mutants, address, log, options.cost)
                walls.setdefault(workers, []).append(wall)
                batches.setdefault(workers, []).append(batch)
                judged.setdefault(workers, []).append(count)
                print(f"mutants, {workers} worker(s): {wall:.1f}s ({batch:.1f}s batch), {count} judged on the cluster",
                      flush=True)
    one, two = statistics.median(batches[1]), statistics.median(batches[2])
    return [
        f"Host: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, load average "
        f"{load_average()} at the end; medians of {options.runs} runs; `vtgate mutate --code --budget "
        f"{options.mutants} -j 4` on the mutfake test engine, {options.cost:g} s per judgement.",
        "",
        "| measurement | value | target |",
        "|---|---|---|",
        f"| mutant batch, 1 worker: whole command / batch | {statistics.median(walls[1]):.1f} s / {one:.1f} s "
        f"({statistics.median(judged[1]):.0f} mutants judged on the cluster) | |",
        f"| mutant batch, 2 workers: whole command / batch | {statistics.median(walls[2]):.1f} s / {two:.1f} s "
        f"({statistics.median(judged[2]):.0f} mutants judged on the cluster) | |",
        f"| speed-up, 2 workers vs 1, batch | {one / two:.2f}x | >= 1.7x |",
        f"| speed-up, 2 workers vs 1, whole command | "
        f"{statistics.median(walls[1]) / statistics.median(walls[2]):.2f}x | |",
        "",
        "Every run: " + "; ".join(f"{w} worker(s) {', '.join(f'{b:.1f}' for b in batches[w])} s batch" for w in (1, 2))
        + ".",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("all", "bisect", "mutants"), default="all")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--commits", type=int, default=40)
    parser.add_argument("--cost", type=float, default=2.0, help="seconds per judgement (scaling)")
    parser.add_argument("--mutants", type=int, default=12, help="mutants in the batch")
    parser.add_argument("--overhead-cost", type=float, default=0.2, help="seconds per judgement (overhead)")
    parser.add_argument("--no-write", action="store_true")
    options = parser.parse_args()
    if options.part in ("all", "mutants"):
        with tempfile.TemporaryDirectory(prefix="bench-dask-") as tmp:
            text = "\n".join(mutant_rows(options, Path(tmp)))
        print(text)
        if not options.no_write:
            write_section(DOC, "\n" + text + "\n", MUTANTS_START, MUTANTS_END)
    if options.part in ("all", "bisect"):
        bisect_table(options)


MUTANTS_START, MUTANTS_END = "<!-- bench-mutants:start -->", "<!-- bench-mutants:end -->"


def bisect_table(options: argparse.Namespace) -> None:
    rows: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-dask-") as tmp:
        root = Path(tmp)
        repo = root / "history" / "repo"
        make_history(repo, options.commits, culprit=options.commits * 2 // 3)
        scaling: dict[int, list[float]] = {}
        clock: dict[int, list[float]] = {}  # the bisection's own clock: cluster connection and start-up excluded
        judgements: dict[int, list[int]] = {}
        for workers in (1, 2):
            with cluster(workers, root / f"cluster-{workers}") as address:
                for _ in range(options.runs):
                    wall, record = bisect(repo, options.cost, ["-j", "4", "--scheduler", address])
                    scaling.setdefault(workers, []).append(wall)
                    clock.setdefault(workers, []).append(record["seconds"])
                    judgements.setdefault(workers, []).append(record["judgements"])
                    print(f"{workers} worker(s): {wall:.1f}s ({record['seconds']:.1f}s bisecting), "
                          f"{record['judgements']} judgements", flush=True)
        one, two = statistics.median(scaling[1]), statistics.median(scaling[2])
        one_clock, two_clock = statistics.median(clock[1]), statistics.median(clock[2])
        local_per, dask_per, local_wall, dask_wall = [], [], [], []
        for _ in range(options.runs):
            wall, record = bisect(repo, options.overhead_cost, ["-j", "1"])
            local_per.append(record["seconds"] / record["judgements"])
            local_wall.append(wall)
            wall, record = bisect(repo, options.overhead_cost, ["-j", "1", "--executor", "dask"])
            dask_per.append(record["seconds"] / record["judgements"])
            dask_wall.append(wall)
            print(f"overhead: local {local_per[-1]:.3f}s/judgement, LocalCluster {dask_per[-1]:.3f}s/judgement",
                  flush=True)
        overhead = statistics.median(dask_per) - statistics.median(local_per)
        startup = statistics.median(dask_wall) - statistics.median(local_wall)
    rows = [
        f"Host: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, load average "
        f"{load_average()} at the end; medians of {options.runs} runs; {options.commits} commits, culprit at 2/3.",
        "",
        "| measurement | value | target |",
        "|---|---|---|",
        f"| `-j 4`, {options.cost:g} s judgements, 1 worker: whole command / bisecting | {one:.1f} s / "
        f"{one_clock:.1f} s ({statistics.median(judgements[1]):.0f} judgements) | |",
        f"| `-j 4`, {options.cost:g} s judgements, 2 workers: whole command / bisecting | {two:.1f} s / "
        f"{two_clock:.1f} s ({statistics.median(judgements[2]):.0f} judgements) | |",
        f"| speed-up, 2 workers vs 1, bisecting (the search's own clock) | {one_clock / two_clock:.2f}x | >= 1.7x |",
        f"| speed-up, 2 workers vs 1, whole command (start-up included) | {one / two:.2f}x | |",
        f"| per judgement, local executor (`-j 1`, {options.overhead_cost:g} s judge) | "
        f"{statistics.median(local_per):.3f} s | |",
        f"| per judgement, LocalCluster (`--executor dask -j 1`) | {statistics.median(dask_per):.3f} s | |",
        f"| overhead per judgement, LocalCluster vs local | {overhead:+.3f} s | <= 0.3 s |",
        f"| LocalCluster start-up and shutdown, once per run | {startup:.1f} s | |",
    ]
    text = "\n".join(rows)
    print(text)
    if not options.no_write:
        write_section(DOC, "\n" + text + "\n")


if __name__ == "__main__":
    main()
