"""Benchmark of vtbisect's build step (docs/bisect.md, "Building each candidate" and "Build-aware cut
points"): a bisection whose candidates must be compiled, four ways, over the same history with the same
build script:

1. ``vtbisect run --setup BUILD --build-input ... --build-output ... -- JUDGE``: the build cache with
   build-aware cut points (the default when a build cache is configured);
2. the same with ``--cut-points plain`` (git's midpoint: the rule before build-aware cuts);
3. ``vtbisect run -- BUILD_AND_JUDGE`` (a judge that builds every time);
4. ``git bisect run BUILD_AND_JUDGE`` in a clone.
(ccache is off in every vtbisect arm: ``--compiler-cache off``.)

Measured: builds performed (the build script's own tally), judgements, the ratio, how many cut points
moved, wall time, and whether the culprit is right. Fresh cache folders for each run.

Histories:
- synthetic (``--seeds`` of them per layout, medians reported): ``--n`` commits after GOOD, 20% touching
  the C sources (``--c-files`` files, compiled one by one with the system ``cc``), 80% only Python; two
  layouts: "spread" (one C commit at a seeded place in each block of five) and "series" (a C series, then
  Python work); the culprit at a seeded place in the second half (a C commit changes the program's
  output, a Python commit breaks ``app.py``). Beside them, the least number of builds any cut rule can
  expect on that layout (an exact dynamic programme over brackets, the first bad commit uniform over
  the range, GOOD's build included): no rule that judges one commit at a time can do better on average.
- real (``--real``): ultrajson 2.0.3..3.0.0, issue #415 (``dumps(indent=N)``), the culprit fe0e88d per
  the maintainers' bisection, with the build and judge scripts of ``benchmarks/ultrajson/`` and a sparse
  clone of ``--real-repo`` (three test-data blobs are missing from the mirror used here; they are not
  build inputs); and MarkupSafe 2.0.0..2.1.4, issue #417 (``striptags()`` no longer collapses spaces),
  the culprit 750e22b ("improve striptags performance", on the branch merged by #413; the fix, #418,
  names it), with ``benchmarks/markupsafe/`` and a clone of ``--markupsafe-repo``. Fetch the mirrors
  first (``github:ultrajson/ultrajson``, ``github:pallets/markupsafe``).

Not a test: no assertions. The table is printed and written into docs/bisect.md between the markers.

    .venv/bin/python benchmarks/bench_bisect_builds.py [--n 60] [--c-files 12] [--seeds 3] [--real]
        [--real-repo PATH] [--no-write]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import load_average, write_section

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "bisect.md"
UJSON = Path(__file__).resolve().parent / "ultrajson"
MARKUPSAFE = Path(__file__).resolve().parent / "markupsafe"
VTBISECT = [sys.executable, "-m", "vtbisect"]
START, END = "<!-- bench-builds:start -->", "<!-- bench-builds:end -->"

BUILD = """\
#!/bin/sh
set -e
mkdir -p out
for f in src/*.c; do cc -O2 -c "$f" -o "out/$(basename "$f" .c).o"; done
cc -o out/prog out/*.o
echo "$VTBISECT_COMMIT" >> "$BENCH_COUNT"
"""
JUDGE = """\
#!/bin/sh
test "$(./out/prog)" = 1 && grep -q "ok = 1" app.py
"""
BUILD_AND_JUDGE = """\
#!/bin/sh
./build.sh >/dev/null 2>&1 || exit 125
exec ./judge.sh
"""
C_FILE = """\
#include "common.h"
/* {note} */
double f{i}(double x) {{ double s = 0; for (int k = 0; k < 64; k++) s += x * k / (k + 1.0); return s; }}
"""
MAIN = """\
#include <stdio.h>
#include "common.h"
int main(void) {{ printf("%d\\n", VALUE); return 0; }}
/* {note} */
"""
ARMS = ("build-aware", "plain", "every", "git")
ARM_NAMES = {"build-aware": "vtbisect build cache, build-aware cuts (default)",
             "plain": "vtbisect build cache, `--cut-points plain`",
             "every": "vtbisect, judge builds every time", "git": "`git bisect run`, same build script"}


def git(repo: Path, *args: str, check: bool = True) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=check).stdout.strip()


def c_commits(n: int, layout: str, seed: int) -> set[int]:
    if layout == "series":
        return set(range(n // 5))
    rng = random.Random(seed)
    return {block + rng.randrange(5) for block in range(0, n, 5) if block + 4 < n}


def make_history(path: Path, n: int, c_files: int, layout: str, seed: int) -> tuple[str, str, str, list[int]]:
    """(GOOD, BAD, culprit, the build-input state of each candidate)."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "b@example.com")
    git(path, "config", "user.name", "Bench")
    src = path / "src"
    src.mkdir()
    (src / "common.h").write_text("#define VALUE 1\n")
    (src / "main.c").write_text(MAIN.format(note="base"))
    for i in range(c_files):
        (src / f"f{i}.c").write_text(C_FILE.format(i=i, note="base"))
    for name, text in (("build.sh", BUILD), ("judge.sh", JUDGE), ("build-and-judge.sh", BUILD_AND_JUDGE)):
        (path / name).write_text(text)
        (path / name).chmod(0o755)
    (path / ".gitignore").write_text("out/\n")
    (path / "app.py").write_text("ok = 1\n# base\n")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "base")
    good = git(path, "rev-parse", "HEAD")
    cs = c_commits(n, layout, seed)
    culprit_at = random.Random(seed + 1000).randrange(n // 2, n - 1)
    culprit, states, state, broken = "", [], 0, False
    for i in range(n):
        if i in cs:
            (src / f"f{i % c_files}.c").write_text(C_FILE.format(i=i % c_files, note=f"change {i}"))
            if i == culprit_at:
                (src / "common.h").write_text("#define VALUE 2\n")
            state += 1
        else:
            broken = broken or i == culprit_at
            (path / "app.py").write_text(f"ok = {0 if broken else 1}\n# {i}\n")
        states.append(state)
        git(path, "commit", "-q", "-am", f"{'c' if i in cs else 'python'} change {i}")
        if i == culprit_at:
            culprit = git(path, "rev-parse", "HEAD")
    return good, git(path, "rev-parse", "HEAD"), culprit, states


def least_expected_builds(states: list[int]) -> float:
    """The fewest builds any one-at-a-time cut rule can expect on this layout, the first bad commit uniform
    over the candidates, GOOD's build included: an exact dynamic programme over brackets (a cut needs a
    build unless its state is that of a bracket end already judged; states here never come back)."""
    n = len(states)

    def state(i: int) -> int:
        return 0 if i < 0 else states[i]

    @functools.cache
    def expected(lo: int, hi: int, lo_built: bool, hi_built: bool) -> float:
        if hi - lo <= 1:
            return 0.0
        best = float("inf")
        for c in range(lo + 1, hi):
            new = not ((lo_built and state(c) == state(lo)) or (hi_built and state(c) == state(hi)))
            p_bad = (c - lo) / (hi - lo)
            best = min(best, new + p_bad * expected(lo, c, lo_built, True) + (1 - p_bad) * expected(c, hi, True, hi_built))
        return best

    return 1 + expected(-1, n - 1, True, False)


def simulated(states: list[int], aware: bool) -> tuple[float, float]:
    """Mean (builds, judgements) over every first-bad position of this layout, GOOD's included, by
    vtbisect's own search (``vtbisect.search``, no builds, no recheck): what one seed's culprit hides."""
    from vtbisect.search import MultiGateSearch, build_aware_cut

    n, builds, judged = len(states), 0, 0

    def state(i: int) -> str:
        return str(0 if i < 0 else states[i])

    for culprit in range(n):
        built = {state(-1)}
        search = MultiGateSearch(["g"], n)

        def choose(lo: int, hi: int, plain: int, free: list[int], built: set[str] = built) -> object:
            return build_aware_cut(lo, hi, plain, free, state, built)

        judged += 1  # GOOD
        while not search.done:
            [index] = search.propose(1, chooser=choose if aware else None)  # type: ignore[arg-type]
            built.add(state(index))
            judged += 1
            search.record(index, {"g": "bad" if index >= culprit else "good"})
        if culprit == n - 1:  # BAD is judged only when the search names it
            built.add(state(n - 1))
            judged += 1
        builds += len(built)
    return builds / n, judged / n


def run_vtbisect(repo: Path, rng: str, args: list[str], env: dict[str, str], cache: Path) -> dict:
    record = cache.parent / f"{cache.name}.json"
    start = time.perf_counter()
    done = subprocess.run([*VTBISECT, "run", rng, "-q", "--cache-dir", str(cache), "--json", str(record), *args],
                          cwd=repo, capture_output=True, text=True, env=env, timeout=7200)
    wall = time.perf_counter() - start
    data = json.loads(record.read_text()) if record.exists() else {}
    if not data:
        print(done.stderr[-3000:], file=sys.stderr)
    return {"wall": wall, "record": data, "code": done.returncode, "stderr": done.stderr}


def run_git_bisect(repo: Path, good: str, bad: str, script: str, env: dict[str, str]) -> dict:
    start = time.perf_counter()
    git(repo, "bisect", "start", bad, good)
    done = subprocess.run(["git", "-C", str(repo), "bisect", "run", script], capture_output=True, text=True,
                          env=env, timeout=7200)
    wall = time.perf_counter() - start
    first = next((line.split()[0] for line in done.stdout.splitlines() if "is the first bad commit" in line), "")
    steps = done.stdout.count("running ")
    git(repo, "bisect", "reset", check=False)
    return {"wall": wall, "culprit": first, "steps": steps}


def count(path: Path) -> int:
    """Builds the build script tallied (one line each; empty under git bisect, which sets no commit)."""
    return len(path.read_text().splitlines()) if path.exists() else 0


def measure(label: str, repo: Path, good: str, bad: str, culprit: str, setup: list[str], judge: list[str],
            build_and_judge: str, inputs: list[str], outputs: list[str], work: Path, env: dict[str, str]) -> dict:
    """Each arm: builds, judgements, moved cuts, wall, right culprit."""
    out = {}
    rng = f"{good}..{bad}"
    flags = [*(x for g in inputs for x in ("--build-input", g)), *(x for o in outputs for x in ("--build-output", o))]
    for arm in ARMS:
        tally = work / f"{label}-{arm}.count"
        arm_env = {**env, "BENCH_COUNT": str(tally)}
        if arm == "git":
            clone = work / f"{label}-git-clone"
            subprocess.run(["git", "clone", "-q", "--no-checkout", str(repo), str(clone)], check=True)
            if label.startswith("ultrajson"):  # the blobs the mirror lacks stay out of the checkout
                git(clone, "sparse-checkout", "set", "--no-cone", "/*", "!/deps/double-conversion/test/")
            git(clone, "checkout", "-q", "--detach", bad, check=False)
            ran = run_git_bisect(clone, good, bad, build_and_judge, arm_env)
            out[arm] = {"builds": count(tally), "judgements": ran["steps"], "moved": None, "cuts": None,
                        "wall": ran["wall"], "right": ran["culprit"] == culprit}
            continue
        if arm == "every":
            args = ["--", build_and_judge]
        else:
            args = ["--setup", *setup, *flags, "--compiler-cache", "off",
                    *(["--cut-points", "plain"] if arm == "plain" else []), "--", *judge]
        ran = run_vtbisect(repo, rng, args, arm_env, work / f"{label}-{arm}")
        if not ran["record"]:  # say what went wrong, then once more from a fresh cache folder
            print(f"{label} {arm}: exit {ran['code']}, no record; again", file=sys.stderr)
            tally.unlink(missing_ok=True)
            ran = run_vtbisect(repo, rng, args, arm_env, work / f"{label}-{arm}-again")
        record = ran["record"]
        cuts = record.get("build", {}).get("cut_points") or {}
        out[arm] = {"builds": count(tally), "judgements": record.get("judgements"), "moved": cuts.get("moved"),
                    "cuts": cuts.get("cuts"), "wall": ran["wall"],
                    "right": [c["commit"] for c in record.get("culprits", [])] == [culprit]}
    return out


def median(values: list) -> float:
    return statistics.median(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--c-files", type=int, default=12)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--real", action="store_true", help="also the ultrajson regression (needs --real-repo)")
    parser.add_argument("--real-repo", type=Path, default=Path("/work/.mirror/ultrajson+ultrajson/repo"))
    parser.add_argument("--markupsafe-repo", type=Path, default=Path("/work/.mirror/pallets+markupsafe/repo"))
    parser.add_argument("--no-synthetic", action="store_true", help="only the real histories")
    parser.add_argument("--projects", default="ultrajson,markupsafe", help="which real histories (with --real)")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    env = {**os.environ, "NO_COLOR": "1", "PYTHON": sys.executable}
    rows = []
    loads = [load_average()]
    with tempfile.TemporaryDirectory(prefix="bench-builds-") as tmp:
        work = Path(tmp)
        for layout in () if args.no_synthetic else ("spread", "series"):
            runs, bounds, sims = [], [], []
            for seed in range(args.seeds):
                repo = work / f"synthetic-{layout}-{seed}"
                good, bad, culprit, states = make_history(repo, args.n, args.c_files, layout, seed)
                bounds.append(least_expected_builds(states))
                sims.append((simulated(states, False), simulated(states, True)))
                runs.append(measure(f"{layout}-{seed}", repo, good, bad, culprit, ["./build.sh"], ["./judge.sh"],
                                    "./build-and-judge.sh", ["src/**"], ["out"], work, env))
                print(layout, seed, json.dumps(runs[-1]), file=sys.stderr)
            for arm in ARMS:
                per = [r[arm] for r in runs]
                ratio = median([p["builds"] / p["judgements"] for p in per])
                moved = (f"{median([p['moved'] for p in per]):g} of {median([p['cuts'] for p in per]):g}"
                         if per[0]["moved"] is not None else "-")
                rows.append(f"| synthetic {layout}, N={args.n}, {args.seeds} seeds (median) | {ARM_NAMES[arm]} | "
                            f"{median([p['builds'] for p in per]):g} | {median([p['judgements'] for p in per]):g} | "
                            f"{ratio:.2f}x | {moved} | {median([p['wall'] for p in per]):.1f} | "
                            f"{sum(p['right'] for p in per)}/{len(per)} |")
            for which, name in ((0, "plain"), (1, "build-aware")):
                b, j = median([sim[which][0] for sim in sims]), median([sim[which][1] for sim in sims])
                rows.append(f"| synthetic {layout} | {name} cuts, mean over every culprit position (simulated, "
                            f"vtbisect.search) | {b:.2f} | {j:.2f} | {b / j:.2f}x | | | |")
            rows.append(f"| synthetic {layout} | least builds any cut rule can expect (exact, uniform culprit) | "
                        f"{median(bounds):.2f} | | | | | |")
        loads.append(load_average())
        projects = args.projects.split(",") if args.real else []
        if "ultrajson" in projects:
            clone = work / "ultrajson"
            subprocess.run(["git", "clone", "-q", "--no-checkout", str(args.real_repo), str(clone)], check=True)
            git(clone, "sparse-checkout", "set", "--no-cone", "/*", "!/deps/double-conversion/test/")
            git(clone, "checkout", "-q", "--detach", "3.0.0", check=False)
            (clone / ".git" / "info" / "exclude").write_text(".vtbuild/\n")
            good, bad = git(clone, "rev-parse", "2.0.3"), git(clone, "rev-parse", "3.0.0")
            culprit = "fe0e88d3455a964997f3352fbe86ba56bea894b0"
            inputs = ["python/**", "lib/**", "deps/double-conversion/double-conversion/**", "setup.py", "pyproject.toml"]
            real = measure("ultrajson", clone, good, bad, culprit, [str(UJSON / "build.sh")],
                           [sys.executable, str(UJSON / "judge.py")], str(UJSON / "judge.sh"), inputs, [".vtbuild"],
                           work, env)
            print("ultrajson", json.dumps(real), file=sys.stderr)
            for arm in ARMS:
                p = real[arm]
                moved = f"{p['moved']} of {p['cuts']}" if p["moved"] is not None else "-"
                rows.append(f"| ultrajson #415, 2.0.3..3.0.0 (103 commits, merges) | {ARM_NAMES[arm]} | {p['builds']} | "
                            f"{p['judgements']} | {p['builds'] / p['judgements']:.2f}x | {moved} | {p['wall']:.1f} | "
                            f"{'yes' if p['right'] else 'no'} |")
            loads.append(load_average())
        if "markupsafe" in projects:
            clone = work / "markupsafe"
            subprocess.run(["git", "clone", "-q", str(args.markupsafe_repo), str(clone)], check=True)
            (clone / ".git" / "info" / "exclude").write_text("*.so\n")
            good, bad = git(clone, "rev-parse", "2.0.0"), git(clone, "rev-parse", "2.1.4")
            real = measure("markupsafe", clone, good, bad, "750e22b453480bced197396b03779d62e9ac209b",
                           [str(MARKUPSAFE / "build.sh")], [sys.executable, str(MARKUPSAFE / "judge.py")],
                           str(MARKUPSAFE / "judge.sh"), ["src/markupsafe/_speedups.c", "setup.py"],
                           ["src/markupsafe/_speedups.so"], work, env)
            print("markupsafe", json.dumps(real), file=sys.stderr)
            commits = git(clone, "rev-list", "--count", f"{good}..{bad}")
            for arm in ARMS:
                p = real[arm]
                moved = f"{p['moved']} of {p['cuts']}" if p["moved"] is not None else "-"
                rows.append(f"| MarkupSafe #417, 2.0.0..2.1.4 ({commits} commits, merges) | {ARM_NAMES[arm]} | "
                            f"{p['builds']} | {p['judgements']} | {p['builds'] / p['judgements']:.2f}x | {moved} | "
                            f"{p['wall']:.1f} | {'yes' if p['right'] else 'no'} |")
            loads.append(load_average())
    table = ["| history | how | builds | judgements | builds / judgements | cuts moved | wall s | right culprit |",
             "|---|---|---|---|---|---|---|---|", *rows]
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    text = "\n".join([f"Measured on {machine} (shared with other work; load average {' -> '.join(loads)}) by "
                      f"`benchmarks/bench_bisect_builds.py{' --real' if args.real else ''} --n {args.n} "
                      f"--c-files {args.c_files} --seeds {args.seeds}`:", "", *table])
    print(text)
    if not args.no_write:
        write_section(DOC, text, START, END)


if __name__ == "__main__":
    main()
