"""Build time of `vtgate report --html` for the engine's own site (its gate suite's check, a `mutate
--code` run and a bisection), and screenshots of each page type for docs/report.md.

    .venv/bin/python benchmarks/bench_report.py [--check F --code F --bisect F [--envdoc F]] [--write-docs]
    .venv/bin/python benchmarks/bench_report.py --screenshots docs/report --site-from F... [--history-demo F]

Without report files it makes them with the real commands first: `vtgate check` (the engine's suite),
`vtgate mutate --code --budget 12 --seed 1` (the CI sample; minutes) and `vtbisect run` over a
generated history of 60 commits with a merged branch (a shell judge). Then it builds the site
`--repeats` times, in this process (the builder alone) and as the command (`vtgate report`, Python's
start and imports included), and prints the median and the slowest. `--write-docs` writes the numbers
into docs/report.md between the bench-report markers. Target: < 5 s for the command."""

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

sys.path.insert(0, str(REPO / "gates"))
from vtgate.htmlsite.build import build_site  # noqa: E402

START, END = "<!-- bench-report:start -->", "<!-- bench-report:end -->"
VTBISECT = str(Path(sys.executable).parent / "vtbisect")
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, timeout=120)


def make_history(root: Path, commits: int = 60) -> None:
    """``commits`` commits on main with a 6-commit branch merged in the middle; the bug lands on the
    branch (a culprit behind a merge)."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "bench@example.com")
    git(root, "config", "user.name", "bench")
    for i in range(commits):
        if i == commits // 2:
            git(root, "checkout", "-q", "-b", "topic", "HEAD~3")
            for j in range(6):
                (root / "topic.txt").write_text(f"{j}\n" + ("BUG\n" if j >= 3 else ""), encoding="utf-8")
                git(root, "add", "-A")
                git(root, "commit", "-q", "-m", f"topic {j}" + (": unroll rows by 4" if j == 3 else ""))
            git(root, "checkout", "-q", "main")
            git(root, "merge", "-q", "--no-ff", "topic", "-m", "Merge branch 'topic'")
        (root / "main.txt").write_text(f"{i}\n", encoding="utf-8")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"main {i}")
        if i == 0:
            git(root, "tag", "good")


def make_reports(folder: Path, names: list[str]) -> dict[str, Path]:
    """The engine's reports named (check, code, bisect, envdoc), made by the real commands."""
    paths = {name: folder / f"{name}.json" for name in names}
    for name, argv in (("check", [VTGATE, "check"]), ("envdoc", [VTGATE, "envdoc"]),
                       ("code", [VTGATE, "mutate", "--code", "--budget", "12", "--seed", "1", "-q"])):
        if name not in paths:
            continue
        started = time.perf_counter()
        subprocess.run([*argv, "--json", str(paths[name])], cwd=REPO, capture_output=True, text=True, check=False)
        print(f"{name}: {time.perf_counter() - started:.0f} s", flush=True)
    if "bisect" not in paths:
        return paths
    repo = folder / "history"
    make_history(repo)
    judge = folder / "judge.sh"
    judge.write_text("#!/bin/sh\n! grep -q BUG topic.txt 2>/dev/null\n", encoding="utf-8")
    judge.chmod(0o755)
    done = subprocess.run([VTBISECT, "run", "-q", "good..main", "--json", str(paths["bisect"]), "--", str(judge)],
                          cwd=repo, capture_output=True, text=True, check=False)
    if not paths["bisect"].exists():
        raise SystemExit(f"vtbisect run wrote no report (exit {done.returncode}):\n{done.stderr}")
    return paths


def time_builds(paths: list[Path], repeats: int) -> tuple[list[float], list[float], int]:
    inside, command = [], []
    pages = 0
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        for i in range(repeats):
            started = time.perf_counter()
            site = build_site(Path(tmp) / f"in-{i}", paths)
            inside.append(time.perf_counter() - started)
            pages = len(site.pages)
            started = time.perf_counter()
            done = subprocess.run([VTGATE, "report", "--html", str(Path(tmp) / f"cmd-{i}"), *map(str, paths)],
                                  capture_output=True, text=True, check=False)
            command.append(time.perf_counter() - started)
            if done.returncode != 0:
                raise SystemExit(f"vtgate report failed (exit {done.returncode}):\n{done.stderr}")
    return inside, command, pages


def screenshots(out: Path, paths: list[Path], history_demo: Path | None) -> None:
    """A PNG of each page type of a site built from ``paths`` (and, with ``history_demo``, a history of
    four runs of that perf check whose first gate's ratio is edited to show a regression)."""
    from playwright.sync_api import sync_playwright
    from vtgate.htmlsite.pages import file_href, gate_href

    with tempfile.TemporaryDirectory(prefix="shots-") as tmp:
        site, history = Path(tmp) / "site", Path(tmp) / "history"
        if history_demo is not None:
            base = json.loads(history_demo.read_text(encoding="utf-8"))
            for index, (ratio, status) in enumerate([(1.03, "green"), (1.01, "green"), (0.84, "red"), (0.97, "green")]):
                report = json.loads(json.dumps(base))
                gate = report["gates"][0]
                gate["status"] = status
                gate["measured"].update(ratio=ratio, low=ratio - 0.03, high=ratio + 0.025)
                edited = Path(tmp) / f"run-{index}.json"
                edited.write_text(json.dumps(report), encoding="utf-8")
                build_site(site, [edited], history=history, commit=f"{index + 10:x}" * 40)
        build_site(site, paths, history=history if history_demo is not None else None, commit=None)
        reports = {json.loads(p.read_text(encoding="utf-8")).get("kind", ""): p for p in paths}
        gates = [g for p in paths for g in json.loads(p.read_text(encoding="utf-8")).get("gates", [])
                 if isinstance(g, dict)]
        reds = [g for g in gates if g["status"] == "red" and isinstance(g["measured"].get("tokens"), list)]
        red = next((g["name"] for g in reds if g["measured"]["tokens"] != g["pinned"].get("tokens")), None)
        margins = next((g["name"] for g in reds if g["measured"]["tokens"] == g["pinned"].get("tokens")), None)
        perf = next((g["name"] for g in gates if g["kind"] == "perf" and g["status"] == "red"), None)
        wanted = {"overview": ("index.html", None), "history": ("history.html", None), "bisect": ("bisect-1.html", None),
                  "envdoc": ("envdoc.html", None), "mutants": ("mutants/index.html", None)}
        if red:
            wanted["gate-divergence"] = (gate_href(red), "#divergence")
        if margins:
            wanted["gate-margins"] = (gate_href(margins), "#divergence")
        if perf:
            wanted["gate-perf"] = (gate_href(perf), "#perf")
        code = reports.get("code")
        if code is not None:
            survivor = next((m for m in json.loads(code.read_text(encoding="utf-8"))["mutants"]
                             if m["status"] == "survived"), None)
            if survivor:
                wanted["mutant-file"] = (file_href(survivor["file"]), "#survivors")
                wanted["mutant-source"] = (file_href(survivor["file"]), f"#L{max(1, survivor['line'] - 12)}")
        out.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                str(Path(tmp) / "profile"), executable_path="/usr/bin/chromium", headless=True, args=LAUNCH_ARGS,
                viewport={"width": 1280, "height": 900})
            page = context.new_page()
            for name, (relative, anchor) in wanted.items():
                if not (site / relative).is_file():
                    continue
                page.goto((site / relative).resolve().as_uri() + (anchor or ""))
                page.screenshot(path=str(out / f"{name}.png"))
                print(f"{out / name}.png", flush=True)
            context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("check", "code", "bisect", "envdoc"):
        parser.add_argument(f"--{name}", type=Path)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--screenshots", type=Path, help="write PNGs of each page type here and stop")
    parser.add_argument("--site-from", type=Path, nargs="+", default=[], help="the reports for --screenshots")
    parser.add_argument("--history-demo", type=Path, help="a perf check report for the history screenshot")
    args = parser.parse_args()
    if args.screenshots:
        screenshots(args.screenshots, args.site_from, args.history_demo)
        return
    with tempfile.TemporaryDirectory(prefix="bench-report-inputs-") as tmp:
        given = {name: getattr(args, name) for name in ("check", "code", "bisect", "envdoc")}
        given.update(make_reports(Path(tmp), [name for name, path in given.items() if path is None]))
        paths = list(given.values())
        inside, command, pages = time_builds(paths, args.repeats)
        check = json.loads(given["check"].read_text(encoding="utf-8"))
    line = (f"{len(check.get('gates', []))} gates, {pages} pages: builder median {statistics.median(inside):.2f} s "
            f"(slowest {max(inside):.2f} s); `vtgate report` command median {statistics.median(command):.2f} s "
            f"(slowest {max(command):.2f} s), {args.repeats} builds, load average {load_average()}, "
            f"{os.cpu_count()} cores")
    print(line)
    if args.write_docs:
        write_section(REPO / "docs" / "report.md", line, START, END)


if __name__ == "__main__":
    main()
