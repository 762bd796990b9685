"""Judgements to find one culprit, vtbisect run against git bisect run, on generated linear and
merge-heavy histories of N = 200 and N = 1000 commits; and, at a 10% flake rate, right culprits out
of 20 and judgements spent.

Histories are written with ``git fast-import`` (a thousand commits in well under a second); the
culprit is a random commit of GOOD..BAD and the judge is the same tiny shell script for both tools:
``git merge-base --is-ancestor CULPRIT HEAD`` (bad when the candidate contains the culprit), counting
its own runs in a file; with a flake rate it also says bad for a good commit that often. Counts, not
times. vtbisect runs with its defaults (``--no-cache`` only): GOOD first, BAD only when the search
would name it, the culprit's red verdict judged again.

Run: ``.venv/bin/python benchmarks/bench_bisect_sizes.py [--histories 5] [--flaky 20] [--write]``;
``--write`` puts the tables into docs/bisect.md between the bench-sizes markers."""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from benchlib import REPO, load_average, write_section

START, END = "<!-- bench-sizes:start -->", "<!-- bench-sizes:end -->"
JUDGE = """\
#!/bin/sh
printf x >> "$BENCH_COUNT"
git merge-base --is-ancestor "$BENCH_CULPRIT" HEAD && exit 1
if [ "$BENCH_FLAKE_PER_65536" -gt 0 ]; then
  draw=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
  [ "$draw" -lt "$BENCH_FLAKE_PER_65536" ] && exit 1
fi
exit 0
"""


def git(repo: Path, *args: str, data: bytes | None = None) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True,
                          input=data).stdout.decode().strip()


def plan_linear(n: int) -> list[tuple[int, ...]]:
    """Parents of each commit (indices; commit 0 is GOOD): a line of ``n`` commits after GOOD."""
    return [()] + [(i - 1,) for i in range(1, n + 1)]


def plan_merges(n: int, rng: random.Random) -> list[tuple[int, ...]]:
    """A mainline with topic branches merged into it, half of them with a sub-branch merged into the
    topic first (the shape of benchmarks/bench_merges.py), until GOOD..BAD holds at least ``n``."""
    parents: list[tuple[int, ...]] = [()]

    def add(*ps: int) -> int:
        parents.append(ps)
        return len(parents) - 1

    main = 0
    while len(parents) - 1 < n:
        for _ in range(rng.randint(1, 4)):
            main = add(main)
        topic = main
        for _ in range(rng.randint(2, 6)):
            topic = add(topic)
        if rng.random() < 0.5:
            sub = topic
            for _ in range(rng.randint(2, 4)):
                sub = add(sub)
            topic = add(add(topic), sub)  # a late topic commit, then the merge of the sub-branch
        main = add(add(main), topic)  # a late mainline commit, then the merge of the topic
    return parents


def write_history(repo: Path, parents: list[tuple[int, ...]]) -> list[str]:
    """The commits of ``parents`` (each adds its own file; dates increase) via git fast-import;
    returns their ids, GOOD first, BAD (the last) last."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    stream = []
    for i, ps in enumerate(parents):
        message = f"commit {i}".encode()
        lines = [b"commit refs/heads/main", f"mark :{i + 1}".encode(),
                 f"committer Bench <bench@example.com> {1_700_000_000 + 60 * i} +0000".encode(),
                 f"data {len(message)}".encode(), message]
        if ps:
            lines.append(f"from :{ps[0] + 1}".encode())
            lines += [f"merge :{p + 1}".encode() for p in ps[1:]]
        content = f"{i}\n".encode()
        lines += [f"M 644 inline f/{i}.txt".encode(), f"data {len(content)}".encode(), content, b""]
        stream.append(b"\n".join(lines))
    git(repo, "fast-import", "--quiet", "--force", data=b"\n".join(stream) + b"\n")
    git(repo, "checkout", "-q", "-f", "main")
    ids = git(repo, "log", "--format=%H %s", "--all").splitlines()
    by_number = {int(line.split()[-1]): line.split()[0] for line in ids}
    return [by_number[i] for i in range(len(parents))]


@dataclass(frozen=True)
class Run:
    judgements: int  # judge runs, counted by the judge itself
    search: int  # vtbisect: steps of phase "search" (git: its judgements)
    right: bool


def judge_env(count: Path, culprit: str, flake: float) -> dict[str, str]:
    count.write_text("")
    return {**os.environ, "BENCH_COUNT": str(count), "BENCH_CULPRIT": culprit,
            "BENCH_FLAKE_PER_65536": str(round(flake * 65536)), "NO_COLOR": "1"}


def git_bisect_run(repo: Path, good: str, bad: str, judge: Path, env: dict[str, str], culprit: str) -> Run:
    git(repo, "bisect", "start", bad, good)
    done = subprocess.run(["git", "-C", str(repo), "bisect", "run", str(judge)], capture_output=True, text=True,
                          env=env)
    git(repo, "bisect", "reset")
    first = next((line.split()[0] for line in done.stdout.splitlines() if "is the first bad commit" in line), None)
    count = len(Path(env["BENCH_COUNT"]).read_text())
    return Run(count, count, first == culprit)


def vtbisect_run(repo: Path, good: str, bad: str, judge: Path, env: dict[str, str], culprit: str) -> Run:
    record = repo.parent / f"{repo.name}.json"
    subprocess.run([sys.executable, "-m", "vtbisect", "run", f"{good}..{bad}", "--no-cache", "-q", "--json",
                    str(record), "--", str(judge)], cwd=repo, capture_output=True, text=True,
                   env={**env, "VT_BISECT_CACHE_DIR": str(repo.parent / f"{repo.name}-cache")})
    data = json.loads(record.read_text()) if record.exists() else {"culprits": [], "steps": []}
    record.unlink(missing_ok=True)
    found = [c["commit"] for c in data["culprits"]]
    return Run(len(Path(env["BENCH_COUNT"]).read_text()), sum(1 for s in data["steps"] if s["phase"] == "search"),
               found == [culprit])


def one(work: Path, tag: str, shape: str, n: int, rng: random.Random, judge: Path, flake: float,
        sizes: list[int] | None = None) -> dict[str, Run]:
    parents = plan_linear(n) if shape == "linear" else plan_merges(n, rng)
    if sizes is not None:
        sizes.append(len(parents) - 1)
    repo = work / tag
    ids = write_history(repo, parents)
    good, bad = ids[0], ids[-1]
    culprit = rng.choice(ids[1:])
    out = {"git": git_bisect_run(repo, good, bad, judge, judge_env(work / "count", culprit, flake), culprit),
           "vt": vtbisect_run(repo, good, bad, judge, judge_env(work / "count", culprit, flake), culprit)}
    subprocess.run(["rm", "-rf", str(repo), f"{repo}-cache"], check=False)
    return out


def stats(values: list[int]) -> str:
    return f"{statistics.median(values):g} / {statistics.mean(values):.1f} / {max(values)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--histories", type=int, default=5)
    parser.add_argument("--flaky", type=int, default=20, help="histories per flaky set (0: none)")
    parser.add_argument("--flaky-n", type=int, default=200)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    lines = [f"Generated histories (seed {args.seed}); {args.histories} per row, the culprit a random commit of "
             "GOOD..BAD; judgements counted by the judge script itself (median / mean / max). vtbisect's extra "
             "over git = GOOD, the culprit's recheck, and BAD when BAD is the culprit.", "",
             "| history | N (GOOD..BAD) | git bisect run | vtbisect run (default) | vtbisect's search alone | "
             "search = git's, per history | vtbisect - git (mean) | right (git, vtbisect) |",
             "|---|---|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory(prefix="bench-sizes-") as tmp:
        work = Path(tmp)
        judge = work / "judge.sh"
        judge.write_text(JUDGE)
        judge.chmod(0o755)
        for shape in ("linear", "merges"):
            for n in args.sizes:
                sizes: list[int] = []
                runs = [one(work, f"{shape}-{n}-{h}", shape, n, rng, judge, 0.0, sizes) for h in range(args.histories)]
                size = str(n) if shape == "linear" else f"{min(sizes)}-{max(sizes)}"
                g = [r["git"].judgements for r in runs]
                v = [r["vt"].judgements for r in runs]
                s = [r["vt"].search for r in runs]
                same = sum(1 for r in runs if r["vt"].search == r["git"].judgements)
                lines.append(f"| {shape} | {size} | {stats(g)} | {stats(v)} | {stats(s)} | "
                             f"{same}/{len(runs)} | +{statistics.mean(v) - statistics.mean(g):.2f} | "
                             f"{sum(r['git'].right for r in runs)}, {sum(r['vt'].right for r in runs)} |")
                print(lines[-1], flush=True)
        if args.flaky:
            lines += ["", f"**10% flakes**: each judgement of a good commit says bad with probability 0.10 (bad commits "
                      f"always bad); {args.flaky} histories of N = {args.flaky_n} per row; right culprits and "
                      "judgements (mean per history).", "",
                      "| history | git bisect run: right | judgements | vtbisect run (default): right | judgements |",
                      "|---|---|---|---|---|"]
            for shape in ("linear", "merges"):
                runs = [one(work, f"flaky-{shape}-{h}", shape, args.flaky_n, rng, judge, 0.10)
                        for h in range(args.flaky)]
                lines.append(f"| {shape} | {sum(r['git'].right for r in runs)}/{args.flaky} | "
                             f"{statistics.mean(r['git'].judgements for r in runs):.1f} | "
                             f"{sum(r['vt'].right for r in runs)}/{args.flaky} | "
                             f"{statistics.mean(r['vt'].judgements for r in runs):.1f} |")
                print(lines[-1], flush=True)
    lines += ["", f"Load average {load_average()}."]
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(REPO / "docs" / "bisect.md", text, START, END)


if __name__ == "__main__":
    main()
