"""The two guards the site tests stand on catch what they claim to: ``el`` escapes every string it is
given (only ``Markup`` passes), and the page check flags a page with no ``lang``, an unlabelled SVG, a
table without headers, a broken link, a script, and markup the HTML5 parser rejects."""

from __future__ import annotations

from pathlib import Path

from vtgate.htmlsite.markup import el, join, page, raw


def test_el_escapes_text_and_attributes_and_keeps_markup_it_made() -> None:
    evil = '<script>alert("x")</script>'
    built = el("a", {"href": evil, "title": evil}, evil, el("b", None, evil), [evil])
    assert "<script" not in built
    assert built.count("&lt;script&gt;") == 5
    assert el("i", None, raw("<b>kept</b>")) == "<i><b>kept</b></i>"
    assert join(["<", el("b", None, ">")]) == "&lt;<b>&gt;</b>"


def test_the_page_check_flags_each_kind_of_problem(tmp_path: Path, html_problems) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "good.html").write_text(page("fine", el("p", None, "ok"), nav=False), encoding="utf-8")
    assert html_problems(site) == {}
    bad = (page("bad", [el("svg", {"viewBox": "0 0 1 1"}), el("table", None, el("tr", None, el("td", None, 1))),
                        el("a", {"href": "nowhere.html"}, "x"), el("a", {"href": "good.html#nope"}, "y"),
                        raw("<script>1</script>"), raw("<p><div></p>")], nav=False)
           .replace('<html lang="en">', "<html>"))
    (site / "bad.html").write_text(bad, encoding="utf-8")
    found = " | ".join(html_problems(site)["bad.html"])
    for expected in ("HTML5 parse error", "<html lang> is None", "<svg> without role=img", "an <svg> without <title>",
                     "table(s) without header cells", "a link to a missing page: nowhere.html",
                     "a link to a missing anchor: good.html#nope", "<script> element"):
        assert expected in found, expected
