"""HTML as text that is escaped by construction: every ``str`` that goes into a page passes through
``html.escape``; only ``Markup`` (made by ``el`` / ``raw`` here) is taken as it is. Gate names,
commit subjects, paths and summaries are data, never markup."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from typing import Union

Child = Union["Markup", str, int, float, None, Iterable["Child"]]


class Markup(str):
    """Text that is already HTML (built by ``el``); anything else is escaped when it is joined in."""


def escape(value: object) -> Markup:
    if isinstance(value, Markup):
        return value
    return Markup(html.escape(str(value), quote=True))


def raw(text: str) -> Markup:
    """Trusted markup written in this package (CSS, SVG made by ``svg``); never data."""
    return Markup(text)


def join(children: Child) -> Markup:
    if children is None:
        return Markup("")
    if isinstance(children, (str, int, float)):
        return escape(children)
    return Markup("".join(join(child) for child in children))


VOID = frozenset({"br", "hr", "img", "meta", "link", "input", "col"})


def el(tag: str, attrs: Mapping[str, object] | None = None, *children: Child) -> Markup:
    """``<tag attr="...">children</tag>`` with every attribute value and text child escaped; an
    attribute whose value is ``None`` or ``False`` is left out, ``True`` writes it bare."""
    parts = [tag]
    for name, value in (attrs or {}).items():
        if value is None or value is False:
            continue
        parts.append(name if value is True else f'{name}="{escape(value)}"')
    head = "<" + " ".join(parts) + ">"
    if tag in VOID:
        return Markup(head)
    return Markup(head + join(children) + f"</{tag}>")


def table(headers: Iterable[Child], rows: Iterable[Iterable[Child]], caption: Child = None,
          **attrs: object) -> Markup:
    """A table with a caption and ``th scope=col`` headers (screen readers name each cell by them)."""
    head = el("thead", None, el("tr", None, [el("th", {"scope": "col"}, h) for h in headers]))
    body = el("tbody", None, [el("tr", None, [el("td", None, cell) for cell in row]) for row in rows])
    return el("table", attrs, el("caption", None, caption) if caption is not None else None, head, body)


def status_badge(status: str) -> Markup:
    return el("span", {"class": f"badge s-{status}"}, status)


STYLE = raw("""
:root { --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --green: #1a7f37; --red: #cf222e;
        --amber: #9a6700; --blue: #0969da; --bg-soft: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); margin: 0; }
header.top { background: #24292f; color: #fff; padding: .6rem 1.2rem; }
header.top a { color: #fff; margin-right: 1.2rem; }
main { padding: 1rem 1.2rem 3rem; max-width: 80rem; }
h1 { font-size: 1.5rem; margin: .4rem 0 .8rem; }
h2 { font-size: 1.2rem; margin-top: 1.6rem; border-bottom: 1px solid var(--line); }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
caption { text-align: left; font-weight: 600; padding: .3rem 0; }
th, td { border: 1px solid var(--line); padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: var(--bg-soft); }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
pre { background: var(--bg-soft); padding: .6rem; overflow-x: auto; border: 1px solid var(--line); }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 1rem; font-weight: 600; font-size: 13px;
         border: 1px solid currentColor; }
.s-green, .s-good, .s-killed, .s-ok, .s-killed-by-crash, .s-killed-by-timeout, .s-deliberate-red { color: var(--green); }
.s-red, .s-bad, .s-survived, .s-ledger-refuted, .s-unexpected-green, .s-findings, .s-culprit { color: var(--red); }
.s-error, .s-skip, .s-possibly-equivalent, .s-ledger-unverified, .s-equivalent, .s-inconclusive { color: var(--amber); }
.muted { color: var(--muted); }
.stream { display: flex; flex-wrap: wrap; gap: 2px; margin: .3rem 0; }
.tok { font-family: ui-monospace, monospace; font-size: 12px; padding: 1px 4px; border: 1px solid var(--line); }
.tok.diff { background: #ffebe9; border-color: var(--red); font-weight: 700; }
.tok.first { outline: 2px solid var(--red); }
.src { border-collapse: collapse; width: 100%; }
.src td { border: none; padding: 0 .5rem; white-space: pre; font-family: ui-monospace, monospace; font-size: 12.5px; }
.src td.n { color: var(--muted); text-align: right; user-select: none; width: 4rem; }
.src td.mk { font-size: 11px; color: var(--muted); width: 7rem; user-select: none; }
.src tr.m-killed td { background: #dafbe1; }
.src tr.m-survived td { background: #ffebe9; }
.src tr.m-other td { background: #fff8c5; }
.legend span { margin-right: 1rem; padding: 0 .4rem; }
.diffline-add { color: var(--green); } .diffline-del { color: var(--red); }
figure { margin: .5rem 0 1rem; } figcaption { color: var(--muted); font-size: 13px; }
svg text { font-family: system-ui, sans-serif; }
a { color: var(--blue); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .5rem 0; }
dl.facts dt { font-weight: 600; color: var(--muted); } dl.facts dd { margin: 0; }
""")


def page(title: str, body: Child, *, depth: int = 0, nav: bool = True) -> str:
    """A whole HTML5 document: ``lang``, charset, viewport, title, inline CSS (no network)."""
    up = "../" * depth
    top = el("header", {"class": "top"},
             el("nav", {"aria-label": "site"},
                el("a", {"href": f"{up}index.html"}, "Overview"),
                el("a", {"href": f"{up}history.html"}, "History"))) if nav else None
    return "<!DOCTYPE html>\n" + el(
        "html", {"lang": "en"},
        el("head", None,
           el("meta", {"charset": "utf-8"}),
           el("meta", {"name": "viewport", "content": "width=device-width, initial-scale=1"}),
           el("title", None, f"{title} · vtgate report"),
           el("style", None, STYLE)),
        el("body", None, top, el("main", {"id": "main"}, el("h1", None, title), body)),
    ) + "\n"
