"""The report site in a real browser: Debian's chromium (/usr/bin/chromium, else `chromium` on PATH) driven by
Playwright, headless, from file:// with a fresh profile and nothing fetched from the network. The
overview lists every gate, clicking a red gate shows its first divergent step, a survivor's diff is
visible on its file page, the bisection graph marks the culprit. Skipped, saying why, only where
chromium is not installed (.ci/run installs it)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, sync_playwright

pytestmark = pytest.mark.slow  # a browser start and page loads: seconds each on a busy 2-core machine

LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium_path() -> str | None:
    for candidate in ("/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    executable = chromium_path()
    if executable is None:
        pytest.skip("no chromium at /usr/bin/chromium or on PATH: install Debian's package "
                    "(apt-get install -y chromium; .ci/run does) to run the browser tests")
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=executable, headless=True, args=LAUNCH_ARGS, timeout=60_000,
            viewport={"width": 1200, "height": 900})
        context.set_default_timeout(30_000)
        blocked: list[str] = []
        context.route(lambda url: not url.startswith("file:"), lambda route: (blocked.append(route.request.url),
                                                                             route.abort()))
        try:
            yield context
        finally:
            context.close()
    assert blocked == [], f"the site tried to load from the network: {blocked}"


@pytest.fixture
def page(browser: BrowserContext) -> Iterator[Page]:
    errors: list[str] = []
    tab = browser.new_page()
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.on("dialog", lambda dialog: (errors.append(f"dialog: {dialog.message}"), dialog.dismiss()))
    yield tab
    tab.close()
    assert errors == []


def url(site: Path, relative: str) -> str:
    return (site / relative).resolve().as_uri()


def test_the_overview_lists_every_gate_with_its_status(sample_site: Any, page: Page) -> None:
    page.goto(url(sample_site.site, "index.html"))
    gates = sample_site.load("check-red.json")["gates"] + sample_site.load("perf-check.json")["gates"]
    links = page.locator("a.gate-link")
    assert links.count() == len(gates)
    assert links.all_inner_texts() == [g["name"] for g in gates]
    for gate in gates:
        row = page.locator("#gate-table tr", has=page.locator(f'a[data-gate="{gate["name"]}"]'))
        assert row.locator(".badge").inner_text() == gate["status"]
    assert page.title() == "Overview · vtgate report"


def test_clicking_a_red_gate_shows_its_first_divergent_step(sample_site: Any, page: Page) -> None:
    page.goto(url(sample_site.site, "index.html"))
    gate = next(g for g in sample_site.load("check-red.json")["gates"] if g["name"] == "decode-bench-anchor")
    page.locator(f'a.gate-red[data-gate="{gate["name"]}"]').click()
    page.wait_for_load_state()
    section = page.locator("#divergence")
    assert section.is_visible()
    first = next(i for i, (a, b) in enumerate(zip(gate["pinned"]["tokens"], gate["measured"]["tokens"], strict=False))
                 if a != b)
    assert f"position {first}" in section.locator("h2").inner_text()
    marked = section.locator("td.first")
    assert marked.count() == 2 and all(cell.is_visible() for cell in marked.all())
    assert marked.all_inner_texts() == [str(gate["pinned"]["tokens"][first]), str(gate["measured"]["tokens"][first])]


def test_a_survivors_diff_is_visible_on_its_file_page(sample_site: Any, page: Page) -> None:
    mutants = sample_site.load("mutate-code.json")["mutants"]
    survivor = next(m for m in mutants if m["status"] == "survived")
    page.goto(url(sample_site.site, "mutants/index.html"))
    page.locator("a.file-link", has_text=survivor["file"]).click()
    page.wait_for_load_state()
    diff = page.locator(".survivor pre.diff").first
    assert diff.is_visible()
    added = next(line for line in survivor["diff"].splitlines() if line.startswith("+") and not line.startswith("+++"))
    assert any(added in text for text in page.locator(".survivor pre.diff").all_inner_texts())
    line = page.locator(f"tr#L{survivor['line']}")
    assert line.get_attribute("class") == "m-survived"
    assert line.locator("td.mk").inner_text() == "survived"  # said in words too, not by colour alone
    colour = line.locator("td").nth(2).evaluate("cell => getComputedStyle(cell).backgroundColor")
    assert colour == "rgb(255, 235, 233)"  # the survivor colour of the stylesheet


def test_the_bisect_graph_marks_the_culprit(sample_site: Any, page: Page) -> None:
    report = sample_site.load("bisect.json")
    (culprit,) = report["culprits"]
    page.goto(url(sample_site.site, "bisect-1.html"))
    marked = page.locator("svg g.commit.culprit")
    assert marked.count() == 1 and marked.is_visible()
    assert marked.get_attribute("data-commit") == culprit["commit"]
    assert marked.get_attribute("data-verdict") == "bad"
    assert "culprit" in marked.locator("text").all_text_contents()
    assert page.locator("svg g.commit").count() == 10  # GOOD and the 9 commits of the range, merge included
    marked.click()
    assert page.url.endswith(f"#c-{culprit['commit'][:12]}")
