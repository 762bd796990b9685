"""vtgate envdoc on real trees in Go, Rust, C++ with templates and Python with helper-built names,
against ground truths built by hand (issue 24). The trees are not kept in this repository: pass
their checkouts, each with its truth file (JSON with ``reads: {NAME: [path:line, ...]}``).

    .venv/bin/python benchmarks/bench_envdoc_langs.py \
        --tree ollama=/path/to/ollama:/path/to/ollama.truth.json \
        --tree text-generation-inference=/path/to/tgi:/path/to/text-generation-inference.truth.json \
        --tree TransformerEngine=...:... --tree poetry=...:...

For each tree it prints (and with --markdown, as a table row for docs/envdoc.md):
- recall: truth names found / truth names; the names missed;
- false positives: names reported as read that the truth does not list;
- "delete the row" said for a live name: stale findings whose message advises deleting a row for a
  name the truth says is read;
- the project's own env page: parsed (entries, warnings) or the error;
- wall and CPU seconds of the scan, and the lines of source walked.
The configuration per tree (sources, excludes, wrappers, doc pages) is the one a user would write,
listed in PROJECTS below; a tree whose name is not there is scanned whole with no wrapper."""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from vtgate.envdoc import EnvdocConfig, EnvdocError, run_envdoc
from vtgate.envdoc.scan import discover

PROJECTS: dict[str, dict[str, Any]] = {
    "ollama": {
        "sources": ["."],
        "include": ["*.go"],
        "exclude": ["*_test.go"],
        "wrappers": ["envconfig.Var:0", "envconfig.String:0", "envconfig.Bool:0", "envconfig.BoolWithDefault:0",
                     "envconfig.Uint:0", "envconfig.Uint64:0"],
        "doc": ["docs/faq.mdx"],
    },
    "text-generation-inference": {
        "sources": ["."],
        "include": ["*.rs"],
        "doc": ["docs/source/reference/launcher.md", "docs/source/architecture.md"],
    },
    "TransformerEngine": {
        "sources": ["transformer_engine", "tests", "build_tools", "setup.py"],
        "exclude": ["tests/*.py"],
        "doc": ["docs/envvars.rst", "README.rst"],
    },
    "poetry": {
        "sources": ["src"],
        "doc": ["docs/configuration.md"],
    },
    # pypa/hatch's build backend: pass the checkout's backend/ folder as the tree
    "hatchling": {
        "sources": ["src"],
        "doc": ["../docs/config/build.md"],
    },
}


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the scan's worker processes)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _lines(root: Path, files: list[tuple[Path, str]]) -> int:
    total = 0
    for path, _ in files:
        try:
            with path.open("rb") as handle:
                total += sum(1 for _ in handle)
        except OSError:
            continue
    return total


def measure(name: str, root: Path, truth_path: Path, jobs: int | None) -> dict[str, Any]:
    truth = json.loads(truth_path.read_text())
    truth_names = set(truth["reads"])
    settings = PROJECTS.get(name, {"sources": ["."]})
    common = {key: settings.get(key) for key in ("sources", "include", "exclude", "wrappers")}
    with tempfile.TemporaryDirectory() as scratch:
        # recall and false positives: every read name, whatever the doc says (prefix "" = all names)
        dummy = Path(scratch) / "ENV.md"
        dummy.write_text("| name | effect |\n|---|---|\n| ZZ_ENVDOC_BENCH_NONE | none |\n")
        cpu0, wall0 = _cpu(), time.perf_counter()
        report = run_envdoc(root, EnvdocConfig.load(root, {**common, "doc": str(dummy), "prefix": "", "jobs": jobs}))
        wall, cpu = time.perf_counter() - wall0, _cpu() - cpu0
    found = {read.name for read in report.reads if read.name}
    files = discover(root, settings.get("sources") or ["."], settings.get("include") or (), settings.get("exclude") or ())
    row: dict[str, Any] = {
        "tree": name,
        "truth": len(truth_names),
        "found": len(truth_names & found),
        "missed": sorted(truth_names - found),
        "false_positives": sorted(found - truth_names),
        "seconds": round(wall, 2),
        "cpu": round(cpu, 2),
        "files": len(files),
        "lines": _lines(root, files),
        "not_scanned": report.not_scanned,
    }
    try:
        own = run_envdoc(root, EnvdocConfig.load(root, {**common, "doc": settings.get("doc"), "prefix": "", "jobs": jobs}))
    except EnvdocError as error:
        row["doc"] = f"not parsed: {str(error).splitlines()[0][:160]}"
        row["delete_live"] = None
        return row
    stale = [finding for finding in own.findings if finding.kind == "stale"]
    row["doc"] = f"{len(own.rows)} entries, {len(own.doc_warnings)} warnings, {len(stale)} stale"
    row["delete_live"] = sorted(f.name for f in stale if f.name in truth_names and "delete the row" in f.message)
    row["stale_not_delete"] = sorted(f.name for f in stale if "delete the row" not in f.message)
    return row


def together(roots: list[Path], jobs: int | None, runs: int) -> dict[str, Any]:
    """One run over every tree at once (each whole: all languages envdoc reads, no filter), the
    "1M lines" speed check: wall time (median of ``runs``) and CPU time (this process and its workers)."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "ENV.md").write_text("| name | effect |\n|---|---|\n| ZZ_ENVDOC_BENCH_NONE | none |\n")
        sources = [str(path.resolve()) for path in roots]
        files = discover(root, sources, (), ())
        walls, cpus = [], []
        report = None
        load_before = round(os.getloadavg()[0], 1)
        for _ in range(runs):
            cpu0, wall0 = _cpu(), time.perf_counter()
            report = run_envdoc(root, EnvdocConfig.load(root, {"sources": sources, "doc": "ENV.md", "prefix": "", "jobs": jobs}))
            walls.append(time.perf_counter() - wall0)
            cpus.append(_cpu() - cpu0)
        assert report is not None
        walls.sort()
        return {
            "files": len(files),
            "lines": _lines(root, files),
            "wall_median": round(walls[len(walls) // 2], 2),
            "wall_range": [round(walls[0], 2), round(walls[-1], 2)],
            "cpu_median": round(sorted(cpus)[len(cpus) // 2], 2),
            "names": len({read.name for read in report.reads if read.name}),
            "jobs": jobs,
            "load_before_after": [load_before, round(os.getloadavg()[0], 1)],
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=CHECKOUT:TRUTH.json")
    parser.add_argument("--time-only", action="append", default=[], metavar="NAME=CHECKOUT",
                        help="a tree with no truth file at hand: only part of the --together timing")
    parser.add_argument("-j", "--jobs", type=int, default=None, help="worker processes (default: envdoc's choice)")
    parser.add_argument("--markdown", action="store_true", help="print the table rows for docs/envdoc.md")
    parser.add_argument("--together", type=int, default=0, metavar="RUNS",
                        help="also time one run over all the trees at once, RUNS times (the 1M-line speed check)")
    args = parser.parse_args(argv)
    rows = []
    for spec in args.tree:
        name, _, rest = spec.partition("=")
        checkout, _, truth = rest.rpartition(":")
        rows.append(measure(name, Path(checkout), Path(truth), args.jobs))
        print(json.dumps(rows[-1], indent=1), file=sys.stderr)
    total_lines = sum(row["lines"] for row in rows)
    total_wall = sum(row["seconds"] for row in rows)
    if args.markdown:
        print("| tree | files (lines) scanned | truth names | found | recall | false positives | 'delete the row' for a live name | own env page | wall s (CPU s) |")
        print("|---|---|---|---|---|---|---|---|---|")
        for row in rows:
            recall = 100.0 * row["found"] / row["truth"] if row["truth"] else 100.0
            live = "n/a (page not parsed)" if row["delete_live"] is None else str(len(row["delete_live"]))
            print(
                f"| {row['tree']} | {row['files']} ({row['lines']:,}) | {row['truth']} | {row['found']} | {recall:.1f}% | "
                f"{len(row['false_positives'])} | {live} | {row['doc']} | {row['seconds']} ({row['cpu']}) |"
            )
    print(f"total: {total_lines:,} lines in {total_wall:.2f} s wall (load {os.getloadavg()[0]:.1f})")
    if args.together:
        roots = [Path(spec.partition("=")[2].rpartition(":")[0]) for spec in args.tree]
        roots += [Path(spec.partition("=")[2]) for spec in args.time_only]
        print("together:", json.dumps(together(roots, args.jobs, args.together)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
