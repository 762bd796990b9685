"""vtbisect's default flake check (a deciding verdict judged again before it is believed) against
git bisect run and vtbisect --no-recheck: right culprits with a test that says bad for a good
commit 10% of the time, and judgements spent when nothing is flaky.

Same generated linear histories, judge script and judgement counter as benchmarks/bench_bisect.py.
Run: ``.venv/bin/python benchmarks/bench_flaky_default.py [--histories 20] [--runs 3] [--write]``;
``--write`` puts the table into docs/bisect.md between the bench-flaky-default markers."""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
from pathlib import Path

from bench_bisect import JUDGE, counted_env, git, git_bisect_run, make_history, vtbisect_run
from benchlib import REPO, load_average, write_section

START, END = "<!-- bench-flaky-default:start -->", "<!-- bench-flaky-default:end -->"
RUNS = {"git bisect run": None, "vtbisect run (default)": (), "vtbisect run --no-recheck": ("--no-recheck",)}


def one_set(work: Path, script: Path, n: int, histories: int, flake: float, rng: random.Random,
            tag: str) -> dict[str, tuple[int, int]]:
    right = dict.fromkeys(RUNS, 0)
    spent = dict.fromkeys(RUNS, 0)
    for h in range(histories):
        culprit = rng.randrange(n)
        repo = work / f"{tag}-{h}"
        good, bad = make_history(repo, n, culprit)
        truth = git(repo, "rev-parse", f"HEAD~{n - 1 - culprit}")
        count = work / f"count-{tag}"
        for name, options in RUNS.items():
            env = counted_env(count, 0.0, flake)
            if options is None:
                result = git_bisect_run(repo, good, bad, script, env)
            else:
                result = vtbisect_run(repo, good, script, env, "--no-cache", *options)
            right[name] += result.culprit == truth
            spent[name] += len(count.read_text())
    return {name: (right[name], spent[name]) for name in RUNS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--histories", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="bench-flaky-") as tmp:
        work = Path(tmp)
        script = work / "judge.py"
        script.write_text(JUDGE)
        flaky = [one_set(work, script, args.n, args.histories, 0.10, rng, f"f{r}") for r in range(args.runs)]
        steady = one_set(work, script, args.n, args.histories, 0.0, rng, "s")
    git_steady = steady["git bisect run"][1]
    lines = [f"N = {args.n}, {args.histories} fresh histories per set; flaky: each judgement of a good commit says "
             f"bad with probability 0.10 ({args.runs} sets); steady: nothing flaky (1 set). Judgements counted by "
             f"the judge script itself. Load average {load_average()}.", "",
             "| run | right culprit, flaky (median; each set) | judgements, flaky (median) | "
             "judgements, steady | vs git, steady |", "|---|---|---|---|---|"]
    for name in RUNS:
        rights = [s[name][0] for s in flaky]
        lines.append(f"| {name} | {statistics.median(rights):g}/{args.histories} ({', '.join(map(str, rights))}) | "
                     f"{statistics.median(s[name][1] for s in flaky):g} | {steady[name][1]} | "
                     f"{steady[name][1] / git_steady:.2f}x |")
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(REPO / "docs" / "bisect.md", text, START, END)


if __name__ == "__main__":
    main()
