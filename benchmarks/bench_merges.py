"""Merge-heavy histories: how many judgements git bisect run and vtbisect spend to find one culprit.

Generated histories (a mainline with topic branches merged into it, some topics with a sub-branch
merged into them; the culprit a random commit of GOOD..BAD); the judge is the same shell one-liner
for every tool. Counts, not times: judgements are what a slow test multiplies. With
``--compare-rev REV`` the vtbisect of that commit (its bisect/ sources, from ``git archive``) is run
as well, e.g. the version that opened merges by a nested search per merge.

Run: ``.venv/bin/python benchmarks/bench_merges.py [--histories 20] [--compare-rev REV] [--write]``;
``--write`` puts the table into docs/bisect.md between the bench-merges markers."""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchlib import REPO, load_average, write_section

JUDGE = ["sh", "-c", "grep -q bad a.txt && exit 1; exit 0"]
START, END = "<!-- bench-merges:start -->", "<!-- bench-merges:end -->"


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": "1700000000 +0000", "GIT_COMMITTER_DATE": "1700000000 +0000"}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env=env).stdout.strip()


def generate(repo: Path, rng: random.Random, topics: int = 6) -> tuple[str, list[str]]:
    """A history; returns (GOOD, every commit after it). The culprit is chosen by ``plant``."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "b@example.com")
    git(repo, "config", "user.name", "Bench")
    (repo / "a.txt").write_text("ok\n")
    counter = iter(range(100_000))

    def commit(label: str) -> None:
        number = next(counter)
        (repo / f"n-{number}.txt").write_text(label)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"{label} #{number}")  # every subject unique

    commit("base")
    good = git(repo, "rev-parse", "HEAD")
    for t in range(topics):
        for _ in range(rng.randint(1, 4)):
            commit(f"main {t}")
        git(repo, "checkout", "-q", "-b", f"topic{t}")
        for _ in range(rng.randint(2, 6)):
            commit(f"topic {t}")
        if rng.random() < 0.5:
            git(repo, "checkout", "-q", "-b", f"sub{t}")
            for _ in range(rng.randint(2, 4)):
                commit(f"sub {t}")
            git(repo, "checkout", "-q", f"topic{t}")
            commit(f"topic {t} late")
            git(repo, "merge", "-q", "--no-ff", "-m", f"merge sub{t}", f"sub{t}")
        git(repo, "checkout", "-q", "main")
        commit(f"main {t} late")
        git(repo, "merge", "-q", "--no-ff", "-m", f"merge topic{t}", f"topic{t}")
    commit("last")
    return good, git(repo, "rev-list", f"{good}..HEAD").split()


def plant(repo: Path, culprit: str) -> None:
    """Rewrite history so that ``culprit`` (and so every commit containing it) has a.txt = bad."""
    git(repo, "filter-branch", "-f", "--tree-filter",
        f'if git merge-base --is-ancestor {culprit} $GIT_COMMIT; then echo bad > a.txt; fi', "--", "--all")


def git_bisect(repo: Path, good: str) -> tuple[int, str]:
    git(repo, "bisect", "start", "HEAD", good)
    out = subprocess.run(["git", "-C", str(repo), "bisect", "run", *JUDGE], capture_output=True, text=True,
                         check=True).stdout
    git(repo, "bisect", "reset")
    first = next(line.split()[0] for line in out.splitlines() if "is the first bad commit" in line)
    return out.count("\nrunning") + out.startswith("running"), first


def vtbisect(repo: Path, good: str, pythonpath: str | None, *extra: str) -> tuple[int, str]:
    with tempfile.TemporaryDirectory(prefix="bench-merges-") as tmp:
        record = Path(tmp) / "r.json"
        env = {**os.environ, "VT_BISECT_CACHE_DIR": str(Path(tmp) / "cache")}
        if pythonpath:
            env["PYTHONPATH"] = pythonpath
        subprocess.run([sys.executable, "-m", "vtbisect", "run", f"{good}..HEAD", "--no-cache", "-q", "--json",
                        str(record), *extra, "--", *JUDGE], cwd=repo, capture_output=True, text=True, env=env)
        data = json.loads(record.read_text())
    return data["evaluations"], data["culprits"][0]["commit"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--histories", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--compare-rev", default=None)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows: dict[str, list[int]] = {"git bisect run": [], "vtbisect run": [], "vtbisect run --first-parent": []}
    right = dict.fromkeys(rows, 0)
    older = None
    sizes = []
    with tempfile.TemporaryDirectory(prefix="bench-merges-") as tmp:
        if args.compare_rev:
            (Path(tmp) / "older").mkdir()
            archive = subprocess.run(["git", "archive", "--format=tar", args.compare_rev, "bisect"], cwd=REPO,
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(Path(tmp) / "older")], input=archive, check=True)
            older = str(Path(tmp) / "older" / "bisect")
            label = f"vtbisect run at {args.compare_rev[:10]}"
            rows[label], right[label] = [], 0
        for h in range(args.histories):
            repo = Path(tmp) / f"h{h}"
            good, after = generate(repo, rng)
            culprit = rng.choice(after)
            # filter-branch rewrote every id: find the culprit again by its (unique) subject
            subject = git(repo, "log", "-1", "--format=%s", culprit)
            plant(repo, culprit)
            good = git(repo, "rev-list", "--max-parents=0", "HEAD")
            culprit = next(line.split(" ", 1)[0] for line in git(repo, "log", "--format=%H %s").splitlines()
                           if line.split(" ", 1)[1] == subject)
            sizes.append(len(after))
            for label in rows:
                if label == "git bisect run":
                    count, first = git_bisect(repo, good)
                elif label == "vtbisect run":
                    count, first = vtbisect(repo, good, None)
                elif label == "vtbisect run --first-parent":
                    count, first = vtbisect(repo, good, None, "--first-parent")
                else:
                    count, first = vtbisect(repo, good, older)
                rows[label].append(count)
                if label == "vtbisect run --first-parent":
                    right[label] += 1  # names the merge that brought the culprit in (its contract)
                else:
                    right[label] += first == culprit
    lines = [f"{args.histories} generated histories (seed {args.seed}): a mainline of 6 topic merges, half the "
             f"topics with a sub-branch merged into them; {statistics.median(sizes):.0f} commits in GOOD..BAD "
             f"(median; {min(sizes)}-{max(sizes)}); the culprit a random one of them. Judgements to find it "
             f"(vtbisect: evaluations, GOOD, the culprit's recheck and, when judged, BAD or the parent-green proof "
             f"included; git: its `running` lines). Load average {load_average()}.", "",
             "| run | right culprit | judgements, median | mean | max |", "|---|---|---|---|---|"]
    for label, counts in rows.items():
        lines.append(f"| {label} | {right[label]}/{args.histories} | {statistics.median(counts):.0f} | "
                     f"{statistics.mean(counts):.1f} | {max(counts)} |")
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(REPO / "docs" / "bisect.md", text, START, END)


if __name__ == "__main__":
    main()
