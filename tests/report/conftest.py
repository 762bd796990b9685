"""Fixtures of the report tests: the sample reports in data/ (written by the real commands, see
data/README.md) made usable here, a git history rebuilt bit for bit (fixed names and dates, so the
same commit ids as the sample bisection's), and the HTML/accessibility check every page must pass."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import unquote, urlsplit

import html5lib
import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
PLACEHOLDER = "/REPO"  # the checkout the samples were made in, written as this in data/

HISTORY = [  # (file, line, message): main, a topic branch with the planted bug, merged back
    ("state.txt", "ok", "start: kernel table"),
    ("notes.txt", "a", "gemv: tidy comments"),
    ("notes.txt", "b", "rmsnorm: rename eps"),
    ("branch", "topic", ""),
    ("topic.txt", "x", "attention: split rows helper"),
    ("state.txt", "BUG", "attention: unroll rows by 4"),
    ("topic.txt", "y", "attention: docstring"),
    ("checkout", "main", ""),
    ("notes.txt", "c", "sampler: argmax ties to lowest id"),
    ("merge", "topic", "Merge branch 'topic' (attention rows)"),
    ("notes.txt", "d", "quant: fp8 scale table"),
    ("notes.txt", "e", "cli: help text"),
]


def make_bisect_repo(root: Path) -> Path:
    """The history of data/bisect.json, commit for commit (same ids): fixed author, committer and dates."""
    root.mkdir(parents=True)
    tick = [0]

    def git(*args: str) -> None:
        tick[0] += 1
        stamp = f"2026-11-01T10:{tick[0]:02d}:00+00:00"
        env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "T",
               "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env, timeout=60)

    git("init", "-q", "-b", "main")
    for index, (name, value, message) in enumerate(HISTORY):
        if name == "branch":
            git("checkout", "-q", "-b", value)
        elif name == "checkout":
            git("checkout", "-q", value)
        elif name == "merge":
            git("merge", "-q", "--no-ff", value, "-m", message)
        else:
            with (root / name).open("a", encoding="utf-8") as handle:
                handle.write(value + "\n")
            git("add", "-A")
            git("commit", "-q", "-m", message)
        if index == 0:
            git("tag", "v1")
    return root


def sample(name: str) -> Any:
    """data/NAME with the placeholder of the checkout replaced by this one."""
    return json.loads((DATA / name).read_text(encoding="utf-8").replace(PLACEHOLDER, str(REPO)))


def make_samples(base: Path) -> SimpleNamespace:
    """The sample reports as files under ``base`` (the bisection's repository rebuilt there), and a
    ``write(name, data)`` to add an edited one."""
    repo = make_bisect_repo(base / "history")
    bisect = sample("bisect.json")
    bisect["recipe"]["repo"] = str(repo)
    files = base / "reports"
    files.mkdir()

    def write(name: str, data: Any) -> Path:
        path = files / name
        path.write_text(json.dumps(data), encoding="utf-8")
        return path

    return SimpleNamespace(
        check=write("check.json", sample("check-red.json")), perf=write("perf.json", sample("perf-check.json")),
        code=write("code.json", sample("mutate-code.json")), envdoc=write("envdoc.json", sample("envdoc.json")),
        mutate=write("mutate.json", sample("mutate.json")),
        bisect=write("bisect.json", bisect), repo=repo, write=write, load=sample,
    )


@pytest.fixture
def samples(tmp_path: Path) -> SimpleNamespace:
    return make_samples(tmp_path)


@pytest.fixture(scope="module")
def sample_site(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """One site built from every sample (in this process), shared by a module's tests."""
    from vtgate.htmlsite.build import build_site

    base = tmp_path_factory.mktemp("sample-site")
    made = make_samples(base)
    made.site = base / "site"
    build_site(made.site, [made.check, made.perf, made.code, made.mutate, made.envdoc, made.bisect], commit="0" * 40)
    return made


def vtgate(*args: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vtgate", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, check=False)


@pytest.fixture
def run_vtgate():
    return vtgate


# --- the HTML and accessibility check -------------------------------------------------------------


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.ids: list[str] = []
        self.links: list[str] = []
        self.problems: list[str] = []
        self.html_lang: str | None = None
        self.title = ""
        self.svg_titles = 0
        self.svgs: list[dict[str, str | None]] = []
        self.tables = 0
        self.tables_with_th = 0
        self.table_stack: list[bool] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "html":
            self.html_lang = found.get("lang")
        if tag == "script":
            self.scripts += 1
        if found.get("id"):
            self.ids.append(str(found["id"]))
        if tag == "a" and found.get("href"):
            self.links.append(str(found["href"]))
        if tag in ("img",) and not found.get("alt"):
            self.problems.append(f"<{tag}> without alt")
        if tag == "svg":
            self.svgs.append(found)
        if tag == "table":
            self.tables += 1
            self.table_stack.append(False)
        if tag == "th" and self.table_stack:
            self.table_stack[-1] = True
            if found.get("scope") not in ("col", "row"):
                self.problems.append("<th> without scope=col|row")
        if tag in ("link", "script", "img", "iframe") and (found.get("src") or found.get("href") or "").startswith(
                ("http:", "https:", "//")):
            self.problems.append(f"<{tag}> loads from the network: {found}")
        if tag not in ("meta", "br", "hr", "img", "input", "link", "col", "circle", "line", "rect", "path"):
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self.table_stack and self.table_stack.pop():
            self.tables_with_th += 1
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[-1] == "title":
            if "svg" in self.stack:
                self.svg_titles += 1
            else:
                self.title += data


def page_problems(path: Path, site: Path) -> list[str]:
    """Why ``path`` fails the check: a strict HTML5 parse error, no ``lang``, no title, an SVG without
    role/label/title, a table without header cells, a duplicate id, a link to a missing file or anchor,
    a script, anything loaded from the network."""
    text = path.read_text(encoding="utf-8")
    problems = []
    try:
        html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(text)
    except Exception as error:  # html5lib raises ParseError for any spec violation in strict mode
        problems.append(f"HTML5 parse error: {error}")
    if not text.startswith("<!DOCTYPE html>"):
        problems.append("no <!DOCTYPE html>")
    collector = _Collector()
    collector.feed(text)
    problems += collector.problems
    if collector.html_lang != "en":
        problems.append(f"<html lang> is {collector.html_lang!r}")
    if not collector.title.strip():
        problems.append("empty <title>")
    for svg in collector.svgs:
        if svg.get("role") != "img" or not svg.get("aria-label"):
            problems.append(f"<svg> without role=img and aria-label: {svg}")
    if collector.svg_titles < len(collector.svgs):
        problems.append("an <svg> without <title>")
    if collector.tables != collector.tables_with_th:
        problems.append(f"{collector.tables - collector.tables_with_th} table(s) without header cells")
    if collector.scripts:
        problems.append(f"{collector.scripts} <script> element(s)")
    duplicates = sorted({i for i in collector.ids if collector.ids.count(i) > 1})
    if duplicates:
        problems.append(f"duplicate ids {duplicates}")
    for href in collector.links:
        parts = urlsplit(href)
        if parts.scheme or parts.netloc:
            problems.append(f"a link out of the site: {href}")
            continue
        target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
        if not target.is_file() or site.resolve() not in target.parents:
            problems.append(f"a link to a missing page: {href}")
            continue
        if parts.fragment:
            ids = re.findall(r'\bid="([^"]+)"', target.read_text(encoding="utf-8"))
            if unquote(parts.fragment) not in ids:
                problems.append(f"a link to a missing anchor: {href}")
    return problems


@pytest.fixture
def html_problems():
    def check(site: Path) -> dict[str, list[str]]:
        return {str(p.relative_to(site)): problems for p in sorted(site.rglob("*.html"))
                if (problems := page_problems(p, site))}

    return check


def pages(site: Path) -> Iterator[Path]:
    yield from sorted(site.rglob("*.html"))
