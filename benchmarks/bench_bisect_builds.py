"""Benchmark of vtbisect's build step (docs/bisect.md, "Building each candidate"): a bisection whose
candidates must be compiled, three ways, over the same history with the same build script:

1. ``vtbisect run --setup BUILD --build-input ... --build-output ... -- JUDGE`` (the build cache), ccache off;
2. the same with ccache (a fresh ``VT_BISECT_CCACHE_DIR``), when ccache is installed;
3. ``vtbisect run -- BUILD_AND_JUDGE`` (a judge that builds every time);
4. ``git bisect run BUILD_AND_JUDGE`` in a clone;
and for ultrajson a second bisection (issue #432, 3.0.0..4.0.0, another judge) over the cache folder of
run 1: builds are shared across runs and ranges.

Measured: builds performed (the build script's own tally), judgements, distinct build-input states
among the judged commits, wall time, and whether the culprit is right. Fresh cache folders for each
vtbisect run (no verdict or build from an earlier run) except the second ultrajson bisection.

Histories:
- synthetic: ``--n`` commits after GOOD, 20% touching the C sources (``--c-files`` files, compiled one
  by one with the system ``cc``), 80% only Python; two layouts: C commits spread evenly (every fifth)
  and C commits first (a C series, then Python work); the culprit a Python commit the program's output
  shows through ``app.py`` (layout "series") or a C commit (layout "spread");
- real (``--real``): ultrajson 2.0.3..3.0.0, issue #415 (``dumps(indent=N)``), the culprit fe0e88d per
  the maintainers' bisection, with the build and judge scripts of ``--research`` (a folder holding
  build.sh, judge.py, judge.sh) and a sparse clone of ``--real-repo`` (three test-data blobs are missing
  from the mirror used here; they are not build inputs).

Not a test: no assertions. The table is printed and written into docs/bisect.md between the markers.

    .venv/bin/python benchmarks/bench_bisect_builds.py [--n 60] [--c-files 12] [--real]
        [--real-repo PATH] [--research PATH] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import write_section

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "bisect.md"
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


def git(repo: Path, *args: str, check: bool = True) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=check).stdout.strip()


def make_history(path: Path, n: int, c_files: int, layout: str) -> tuple[str, str, str]:
    """(GOOD, BAD, culprit)."""
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
    culprit_at = (int(n * 0.6) // 5) * 5 + 4 if layout == "spread" else int(n * 0.7)
    culprit = ""
    for i in range(n):
        is_c = (i % 5 == 4) if layout == "spread" else (i < n // 5)
        if is_c:
            (src / f"f{i % c_files}.c").write_text(C_FILE.format(i=i % c_files, note=f"change {i}"))
            if layout == "spread" and i == culprit_at:
                (src / "common.h").write_text("#define VALUE 2\n")
        else:
            ok = 0 if layout == "series" and i >= culprit_at else 1
            (path / "app.py").write_text(f"ok = {ok}\n# {i}\n")
        git(path, "commit", "-q", "-am", f"{'c' if is_c else 'python'} change {i}")
        if i == culprit_at:
            culprit = git(path, "rev-parse", "HEAD")
    return good, git(path, "rev-parse", "HEAD"), culprit


def run_vtbisect(repo: Path, rng: str, args: list[str], env: dict[str, str], cache: Path) -> dict:
    record = cache.parent / f"{cache.name}.json"
    start = time.perf_counter()
    done = subprocess.run([*VTBISECT, "run", rng, "-q", "--cache-dir", str(cache), "--json", str(record), *args],
                          cwd=repo, capture_output=True, text=True, env=env, timeout=7200)
    wall = time.perf_counter() - start
    data = json.loads(record.read_text()) if record.exists() else {}
    if not data:
        print(done.stderr[-3000:], file=sys.stderr)
    return {"wall": wall, "record": data, "code": done.returncode}


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


def distinct_inputs(repo: Path, commits: list[str], globs: list[str]) -> int:
    from vtbisect.build import glob_pattern
    from vtbisect.gitrepo import repository

    patterns = [glob_pattern(g) for g in globs]
    states = set()
    for commit in set(commits):
        entries = repository(repo).blob_entries(commit)
        states.add(tuple(sorted(e for e in entries if any(p.fullmatch(e[0]) for p in patterns))))
    return len(states)


def count(path: Path) -> int:
    return len(path.read_text().split()) if path.exists() else 0


def slug(label: str) -> str:
    """A folder name for ``label``: build scripts seldom quote paths (ultrajson's does not)."""
    return "".join(c if c.isalnum() or c in "-." else "-" for c in label)


def verdict(found: list[str] | str, culprit: str) -> str:
    found = [found] if isinstance(found, str) else found
    return "yes" if found == [culprit] else f"no ({' '.join(c[:10] for c in found) or 'none'})"


def measure(label: str, repo: Path, good: str, bad: str, culprit: str, setup: list[str], judge: list[str],
            build_and_judge: str, inputs: list[str], outputs: list[str], work: Path, env: dict[str, str]) -> list[str]:
    rows = []
    rng = f"{good}..{bad}"
    flags = [*(x for g in inputs for x in ("--build-input", g)), *(x for o in outputs for x in ("--build-output", o))]
    for how, cache, extra in (("vtbisect --setup + build cache", "cache-a", ["--compiler-cache", "off"]),
                              ("vtbisect --setup + build cache + ccache", "cache-c", [])):
        run = run_vtbisect(repo, rng, ["--setup", *setup, *flags, *extra, "--", *judge],
                           {**env, "BENCH_COUNT": str(work / f"{slug(label)}-{cache}.count"),
                            "VT_BISECT_CCACHE_DIR": str(work / f"{slug(label)}-ccache")}, work / f"{slug(label)}-{cache}")
        record = run["record"]
        build = record.get("build", {})
        judged = [e["commit"] for e in build.get("events", [])]
        rows.append(f"| {label} | {how} | {build.get('builds')} | {record.get('judgements')} | "
                    f"{distinct_inputs(repo, judged, inputs)} | {run['wall']:.1f} | "
                    f"{verdict([c['commit'] for c in record.get('culprits', [])], culprit)} |")
    tally = work / f"{slug(label)}-every.count"
    every = run_vtbisect(repo, rng, ["--", build_and_judge], {**env, "BENCH_COUNT": str(tally)},
                         work / f"{slug(label)}-cache-b")
    record = every["record"]
    rows.append(f"| {label} | vtbisect, judge builds every time | {count(tally) or record.get('judgements')} | "
                f"{record.get('judgements')} | - | {every['wall']:.1f} | "
                f"{verdict([c['commit'] for c in record.get('culprits', [])], culprit)} |")
    tally = work / f"{slug(label)}-git.count"
    clone = work / f"{slug(label)}-git-clone"
    baseline = run_git_bisect(repo if label.startswith("ultrajson") else clone_of(repo, clone), good, bad,
                              build_and_judge, {**env, "BENCH_COUNT": str(tally)})
    rows.append(f"| {label} | git bisect run, same build script | {count(tally) or baseline['steps']} | "
                f"{baseline['steps']} | - | {baseline['wall']:.1f} | {verdict(baseline['culprit'], culprit)} |")
    return rows


def second_run(label: str, repo: Path, good: str, bad: str, culprit: str, setup: list[str], judge: list[str],
               inputs: list[str], outputs: list[str], work: Path, env: dict[str, str], cache: str) -> list[str]:
    """Another bisection with another judge over the cache folder of an earlier one: builds shared."""
    flags = [*(x for g in inputs for x in ("--build-input", g)), *(x for o in outputs for x in ("--build-output", o))]
    run = run_vtbisect(repo, f"{good}..{bad}", ["--setup", *setup, *flags, "--compiler-cache", "off", "--", *judge],
                       env, work / cache)
    record = run["record"]
    build = record.get("build", {})
    judged = [e["commit"] for e in build.get("events", [])]
    return [f"| {label} | vtbisect --setup + build cache, after the run above (same cache folder) | "
            f"{build.get('builds')} ({build.get('cache_hits')} hits) | {record.get('judgements')} | "
            f"{distinct_inputs(repo, judged, inputs)} | {run['wall']:.1f} | "
            f"{verdict([c['commit'] for c in record.get('culprits', [])], culprit)} |"]


def clone_of(repo: Path, target: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(repo), str(target)], check=True)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--c-files", type=int, default=12)
    parser.add_argument("--real", action="store_true", help="also the ultrajson regression (needs --real-repo)")
    parser.add_argument("--real-repo", type=Path, default=Path("/work/.mirror/ultrajson+ultrajson/repo"))
    parser.add_argument("--research", type=Path, default=Path("/tmp/vt/bisect-research"))
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    env = {**os.environ, "NO_COLOR": "1"}
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-builds-") as tmp:
        work = Path(tmp)
        for layout in ("spread", "series"):
            repo = work / f"synthetic-{layout}"
            good, bad, culprit = make_history(repo, args.n, args.c_files, layout)
            rows += measure(f"synthetic {layout}, N={args.n}", repo, good, bad, culprit, ["./build.sh"],
                            ["./judge.sh"], "./build-and-judge.sh", ["src/**"], ["out"], work, env)
        if args.real:
            clone = work / "ultrajson"
            subprocess.run(["git", "clone", "-q", "--no-checkout", str(args.real_repo), str(clone)], check=True)
            git(clone, "sparse-checkout", "set", "--no-cone", "/*", "!/deps/double-conversion/test/")
            git(clone, "checkout", "-q", "--detach", "3.0.0", check=False)
            (clone / ".git" / "info" / "exclude").write_text(".vtbuild/\n")
            good, bad = git(clone, "rev-parse", "2.0.3"), git(clone, "rev-parse", "3.0.0")
            culprit = "fe0e88d3455a964997f3352fbe86ba56bea894b0"
            inputs = ["python/**", "lib/**", "deps/double-conversion/double-conversion/**", "setup.py", "pyproject.toml"]
            label = "ultrajson #415, 2.0.3..3.0.0"
            rows += measure(label, clone, good, bad, culprit, [str(args.research / "build.sh")],
                            ["python3", str(args.research / "judge.py")], str(args.research / "judge.sh"),
                            inputs, [".vtbuild"], work, env)
            if (args.research / "judge_tab_indent.py").is_file():
                rows += second_run("ultrajson #432, 3.0.0..4.0.0", clone, bad, git(clone, "rev-parse", "4.0.0"),
                                   "5b979eeebf31f3bc8d5de914e578935cce8571e1", [str(args.research / "build.sh")],
                                   ["python3", str(args.research / "judge_tab_indent.py")], inputs, [".vtbuild"],
                                   work, env, f"{slug(label)}-cache-a")
    table = ["| history | how | builds | judgements | distinct inputs judged | wall s | right culprit |",
             "|---|---|---|---|---|---|---|", *rows]
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    text = "\n".join([f"Measured on {machine} (shared with other work) by `benchmarks/bench_bisect_builds.py"
                      + (" --real" if args.real else "") + f" --n {args.n} --c-files {args.c_files}`:", "", *table])
    print(text)
    if not args.no_write:
        write_section(DOC, text, START, END)


if __name__ == "__main__":
    main()
