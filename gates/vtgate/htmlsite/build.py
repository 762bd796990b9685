"""The site: the pages of one run (the reports given, or the newest run of ``--history``) plus the
history across every run, written into one folder. Nothing in it loads anything from the network:
styles are inline, plots are inline SVG, links are relative."""

from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vtgate.htmlsite import pages
from vtgate.htmlsite.history import Run, add_run, head_commit, now_utc, read_history
from vtgate.htmlsite.inputs import NothingToBuild, ReportInputError, Validator, load_reports
from vtgate.htmlsite.markup import page

MARKER = ".vtgate-report"  # a folder holding this file was written by vtgate report: safe to replace


@dataclass
class Site:
    out: Path
    pages: list[Path] = field(default_factory=list)
    runs: int = 0
    seconds: float = 0.0
    history_entry: Path | None = None


def prepare_out(out: Path) -> None:
    """An empty folder, or one this command wrote before (replaced); never someone else's files."""
    if out.exists():
        if not out.is_dir():
            raise ReportInputError(f"--html {out} is a file; fix: name a folder for the site")
        if any(out.iterdir()) and not (out / MARKER).exists():
            raise ReportInputError(f"--html {out} is a folder with other files in it; fix: name an empty or new "
                                   "folder (a folder vtgate report wrote before is replaced)")
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / MARKER).write_text("written by vtgate report --html; replaced on the next build\n", encoding="utf-8")


def current_run(paths: Sequence[Path], validator: Validator, commit: str | None, root: Path | None) -> Run | None:
    if not paths:
        return None
    reports = load_reports(paths, validator)
    if commit is None:
        where = root or (Path(reports.root) if reports.root else Path.cwd())
        commit = head_commit(where)
    return Run(reports, commit, now_utc(), "the reports given")


def code_root(code: dict[str, Any] | None) -> Path | None:
    """The tree a --code run mutated: the folder above its ledger that holds the mutated files (the
    report names files relative to it), else the current directory when it holds them."""
    if code is None or not code.get("mutants"):
        return None
    first = code["mutants"][0]["file"]
    ledger = Path(code.get("ledger") or ".").resolve()
    for folder in [*ledger.parents, Path.cwd()]:
        if (folder / first).is_file():
            return folder
    return None


def source_of(root: Path | None, path: str) -> str | None:
    """The text of ``path`` under ``root``; None when it cannot be read or lies outside ``root`` (a
    report naming ``../../x`` never copies a file from elsewhere into the site)."""
    if root is None:
        return None
    target = (root / path).resolve()
    if root.resolve() not in target.parents:
        return None
    try:
        return target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def build_site(out: Path, paths: Sequence[Path], *, history: Path | None = None, commit: str | None = None,
               root: Path | None = None, validator: Validator | None = None) -> Site:
    """Validate every input, then write the whole site into ``out``."""
    started = time.perf_counter()
    validator = validator or Validator()
    run = current_run(paths, validator, commit, root)
    runs: list[Run] = read_history(history, validator) if history is not None else []
    site = Site(out)
    if run is not None and history is not None:
        site.history_entry = add_run(history, run)
        runs = read_history(history, validator)
        run = next((r for r in runs if r.source == str(site.history_entry)), runs[-1])
    elif run is not None:
        runs = [run]
    if not runs:
        raise NothingToBuild("nothing to build: no reports given and no run in --history; fix: pass the "
                               "JSON reports (vtgate report --html OUT check.json ...) or a --history folder "
                               "with runs")
    run = run or runs[-1]
    if root is None:
        root = Path(run.reports.root) if run.reports.root else code_root(run.reports.code)
    prepare_out(out)
    written: list[Path] = []

    def write(relative: str, title: str, body: Any, depth: int = 0) -> None:
        target = out / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page(title, body, depth=depth), encoding="utf-8")
        written.append(target)

    bisect_pages = [f"bisect-{i + 1}.html" for i in range(len(run.reports.bisects))]
    write("index.html", "Overview", pages.overview(run, bisect_pages, len(runs) > 1))
    gate_history = pages.gate_history(runs)
    if run.reports.checks:
        for gate in run.reports.gates:
            name = gate["name"]
            write(pages.gate_href(name), f"Gate {name}",
                  pages.gate_page(gate, gate_history.trends.get(name, []), gate_history.statuses.get(name, [])),
                  depth=1)
    if run.reports.code is not None or run.reports.mutate is not None:
        linked = frozenset(gate["name"] for gate in run.reports.gates)
        write("mutants/index.html", "Mutants", pages.mutants_index(run.reports.code, run.reports.mutate, linked),
              depth=1)
    if run.reports.code is not None:
        by_file: dict[str, list[dict[str, Any]]] = {}
        for mutant in run.reports.code["mutants"]:
            by_file.setdefault(mutant["file"], []).append(mutant)
        for path in sorted(set(by_file) | set(run.reports.code["by_file"])):
            write(pages.file_href(path), f"Mutants in {path}",
                  pages.mutant_file_page(path, by_file.get(path, []), source_of(root, path)), depth=1)
    for index, bisect in enumerate(run.reports.bisects):
        write(bisect_pages[index], f"Bisection {bisect['range']}", pages.bisect_page(bisect))
    if run.reports.envdoc is not None:
        write("envdoc.html", "Environment knobs (envdoc)", pages.envdoc_page(run.reports.envdoc))
    write("history.html", "History",
          pages.history_page(runs, gate_history, frozenset(gate["name"] for gate in run.reports.gates)))
    site.pages = written
    site.runs = len(runs)
    site.seconds = time.perf_counter() - started
    return site
