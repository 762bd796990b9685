"""The site's plots as SVG text, computed here from the reports' numbers (no charting library, no
script): a perf gate's ratio with its interval and threshold, the per-leg scatter, a trend across
runs, and a bisection's commit graph. Every plot is ``role="img"`` with a ``<title>`` and an
``aria-label``; every label is escaped (``markup.el``)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vtgate.htmlsite.graph import Graph
from vtgate.htmlsite.markup import Child, Markup, el

GREEN, RED, AMBER, BLUE, GREY, INK = "#1a7f37", "#cf222e", "#9a6700", "#0969da", "#8c959f", "#1b1f24"
VERDICT_FILL = {"good": GREEN, "bad": RED, "skip": AMBER}


def fmt(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if math.isfinite(value) else "0"


def frame(width: float, height: float, label: str, *children: Child) -> Markup:
    return el("svg", {"xmlns": "http://www.w3.org/2000/svg", "viewBox": f"0 0 {fmt(width)} {fmt(height)}",
                      "width": fmt(width), "height": fmt(height), "role": "img", "aria-label": label},
              el("title", None, label), *children)


def text(x: float, y: float, body: str, **attrs: object) -> Markup:
    return el("text", {"x": fmt(x), "y": fmt(y), "font-size": attrs.pop("size", 11), **attrs}, body)


def line(x1: float, y1: float, x2: float, y2: float, stroke: str = INK, **attrs: object) -> Markup:
    return el("line", {"x1": fmt(x1), "y1": fmt(y1), "x2": fmt(x2), "y2": fmt(y2), "stroke": stroke, **attrs})


def nice_range(values: Sequence[float], pad: float = 0.08) -> tuple[float, float]:
    low, high = min(values), max(values)
    span = high - low or abs(high) * 0.1 or 1.0
    return low - span * pad, high + span * pad


def ticks(low: float, high: float, count: int = 5) -> list[float]:
    step = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(step)) if step > 0 else 1
    step = min((m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= step), default=step)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step) + 1)]


def tick_label(value: float) -> str:
    return f"{value:.4g}"


def interval_plot(ratio: float, low: float, high: float, threshold: float | None, label: str) -> Markup:
    """A horizontal axis of candidate/reference ratios: the interval as a bar, the ratio as a dot, the
    gate's ``min_ratio`` and 1.0 as vertical lines."""
    width, height, left, right = 560.0, 86.0, 20.0, 20.0
    marks = [ratio, low, high, 1.0] + ([threshold] if threshold is not None else [])
    lo, hi = nice_range(marks, 0.15)

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * (width - left - right)

    parts: list[Child] = [line(left, 54, width - right, 54, GREY)]
    for t in ticks(lo, hi):
        parts += [line(x(t), 54, x(t), 58, GREY), text(x(t), 72, tick_label(t), **{"text-anchor": "middle"})]
    if threshold is not None:
        parts += [line(x(threshold), 10, x(threshold), 54, RED, **{"stroke-dasharray": "4 3"}),
                  text(x(threshold), 9, f"min_ratio {tick_label(threshold)}", fill=RED, **{"text-anchor": "middle"})]
    parts += [line(x(1.0), 18, x(1.0), 54, GREY, **{"stroke-dasharray": "2 2"})]
    colour = GREEN if threshold is None or low >= threshold else RED if high < threshold else AMBER
    parts += [el("rect", {"x": fmt(x(low)), "y": "28", "width": fmt(max(x(high) - x(low), 1.5)), "height": "12",
                          "fill": colour, "fill-opacity": "0.35", "stroke": colour}),
              el("circle", {"cx": fmt(x(ratio)), "cy": "34", "r": "5", "fill": colour},
                 el("title", None, f"ratio {tick_label(ratio)}, interval [{tick_label(low)}, {tick_label(high)}]")),
              text(x(ratio), 22, f"{ratio:.3f}", **{"text-anchor": "middle", "font-weight": "bold"})]
    return frame(width, height, label, parts)


def scatter(values: Sequence[Mapping[str, Any]], label: str, metric: str = "value") -> Markup:
    """Each timed leg: x = its round, y = its metric value, one colour per role (a legend names them)."""
    points = [v for v in values if isinstance(v.get("value"), (int, float)) and v.get("round") is not None]
    width, height, left, bottom, top = 560.0, 240.0, 64.0, 36.0, 24.0
    if not points:
        return frame(width, 40, label, text(8, 24, "no timed legs in this report"))
    rounds = [int(p["round"]) for p in points]
    lo, hi = nice_range([float(p["value"]) for p in points])
    r_hi = max(rounds) + 1

    def x(r: float) -> float:
        return left + (r + 0.5) / r_hi * (width - left - 16)

    def y(v: float) -> float:
        return top + (hi - v) / (hi - lo) * (height - top - bottom)

    parts: list[Child] = [line(left, top, left, height - bottom, GREY), line(left, height - bottom, width - 16,
                                                                              height - bottom, GREY)]
    for t in ticks(lo, hi):
        parts += [line(left - 4, y(t), left, y(t), GREY), text(left - 6, y(t) + 4, tick_label(t),
                                                               **{"text-anchor": "end"})]
    step = max(1, r_hi // 10)
    for r in range(0, r_hi, step):
        parts.append(text(x(r), height - bottom + 14, str(r + 1), **{"text-anchor": "middle"}))
    parts.append(text((left + width) / 2, height - 6, "round", **{"text-anchor": "middle"}))
    parts.append(text(12, top - 8, metric))
    colours = {"candidate": BLUE, "reference": AMBER}
    roles = sorted({str(p.get("role")) for p in points})
    for index, role in enumerate(roles):
        colour = colours.get(role, GREY)
        parts += [el("circle", {"cx": fmt(width - 150 + index * 80), "cy": "12", "r": "4", "fill": colour}),
                  text(width - 142 + index * 80, 16, role)]
    for p in points:
        role = str(p.get("role"))
        offset = -4 if role == "candidate" else 4
        parts.append(el("circle", {"cx": fmt(x(int(p["round"])) + offset), "cy": fmt(y(float(p["value"]))), "r": "3.5",
                                   "fill": colours.get(role, GREY), "fill-opacity": "0.8"},
                        el("title", None, f"leg {p.get('leg')}: {role}, round {int(p['round']) + 1}, "
                                          f"{metric} {float(p['value']):.4g}"
                                          + (f", load {p['load_per_core']}/core" if p.get("load_per_core") is not None
                                             else ""))))
    return frame(width, height, label, parts)


@dataclass
class TrendPoint:
    run: str  # the run's label (commit, time)
    commit: str | None
    ratio: float
    low: float
    high: float
    status: str
    regression: bool  # red here, not red in the run before


def trend(points: Sequence[TrendPoint], threshold: float | None, label: str) -> Markup:
    """Ratio and interval per run, oldest left; a regression (red after a run that was not) is ringed
    and labelled with its commit."""
    width, height, left, bottom, top = 640.0, 240.0, 56.0, 40.0, 28.0
    if not points:
        return frame(width, 40, label, text(8, 24, "no earlier runs of this gate"))
    marks = [v for p in points for v in (p.ratio, p.low, p.high)] + ([threshold] if threshold is not None else [])
    lo, hi = nice_range(marks)
    count = len(points)

    def x(i: int) -> float:
        return left + (i + 0.5) / count * (width - left - 16)

    def y(v: float) -> float:
        return top + (hi - v) / (hi - lo) * (height - top - bottom)

    parts: list[Child] = [line(left, top, left, height - bottom, GREY),
                          line(left, height - bottom, width - 16, height - bottom, GREY)]
    for t in ticks(lo, hi):
        parts += [line(left - 4, y(t), left, y(t), GREY),
                  text(left - 6, y(t) + 4, tick_label(t), **{"text-anchor": "end"})]
    if threshold is not None:
        parts += [line(left, y(threshold), width - 16, y(threshold), RED, **{"stroke-dasharray": "4 3"}),
                  text(width - 18, y(threshold) - 4, f"min_ratio {tick_label(threshold)}", fill=RED,
                       **{"text-anchor": "end"})]
    path = " ".join(f"{'M' if i == 0 else 'L'}{fmt(x(i))},{fmt(y(p.ratio))}" for i, p in enumerate(points))
    parts.append(el("path", {"d": path, "fill": "none", "stroke": BLUE, "stroke-width": "1.5"}))
    for i, p in enumerate(points):
        colour = {"green": GREEN, "red": RED}.get(p.status, AMBER)
        parts += [line(x(i), y(p.high), x(i), y(p.low), colour, **{"stroke-width": "2"}),
                  el("circle", {"cx": fmt(x(i)), "cy": fmt(y(p.ratio)), "r": "4.5", "fill": colour},
                     el("title", None, f"{p.run}: ratio {p.ratio:.3f} [{p.low:.3f}, {p.high:.3f}], {p.status}"
                                       + (" (regression)" if p.regression else "")))]
        parts.append(text(x(i), height - bottom + 14, (p.commit or "?")[:7], **{"text-anchor": "middle"}))
        if p.regression:
            parts += [el("circle", {"cx": fmt(x(i)), "cy": fmt(y(p.ratio)), "r": "9", "fill": "none",
                                    "stroke": RED, "stroke-width": "2", "class": "regression"}),
                      text(x(i), top - 10, f"regression at {(p.commit or '?')[:10]}", fill=RED,
                           **{"text-anchor": "middle", "font-weight": "bold"})]
    parts.append(text((left + width) / 2, height - 6, "run (commit)", **{"text-anchor": "middle"}))
    return frame(width, height, label, parts)


def commit_graph(graph: Graph, verdicts: Mapping[str, str], culprits: Mapping[str, str],
                 ends: Mapping[str, str], label: str) -> Markup:
    """Commits oldest left to newest right, one row per lane (lane 0: BAD's first-parent line); edges
    to parents; a judged commit filled by its verdict, an unjudged one hollow; a culprit ringed red and
    labelled; GOOD and BAD labelled. Each node links to its step in the table below."""
    step_x, lane_h, left, top = 46.0, 54.0, 24.0, 40.0
    width = left * 2 + max(len(graph.nodes) - 1, 1) * step_x + 120
    height = top + graph.lanes * lane_h + 40

    def pos(commit: str) -> tuple[float, float]:
        node = graph.by_commit[commit]
        return left + node.column * step_x, top + node.lane * lane_h + 14

    parts: list[Child] = []
    for node in graph.nodes:
        x1, y1 = pos(node.commit)
        for parent in node.parents:
            if parent in graph.by_commit:
                x2, y2 = pos(parent)
                if y1 == y2:
                    parts.append(line(x1, y1, x2, y2, GREY, **{"stroke-width": "2"}))
                else:
                    middle = (x1 + x2) / 2
                    parts.append(el("path", {"d": f"M{fmt(x1)},{fmt(y1)} C{fmt(middle)},{fmt(y1)} {fmt(middle)},"
                                                  f"{fmt(y2)} {fmt(x2)},{fmt(y2)}",
                                             "fill": "none", "stroke": GREY, "stroke-width": "2"}))
    if not graph.complete:
        for a, b in zip(graph.nodes, graph.nodes[1:], strict=False):
            (xa, ya), (xb, yb) = pos(a.commit), pos(b.commit)
            parts.append(line(xa, ya, xb, yb, GREY, **{"stroke-dasharray": "3 3"}))
    for node in graph.nodes:
        cx, cy = pos(node.commit)
        verdict = verdicts.get(node.commit)
        is_culprit = node.commit in culprits
        merge = len(node.parents) > 1
        fill = VERDICT_FILL.get(verdict or "", "#ffffff")
        tip = (f"{node.commit[:10]} {node.subject}: "
               + (f"judged {verdict}" if verdict else "not judged")
               + (" — merge" if merge else "") + (f" — CULPRIT ({culprits[node.commit]})" if is_culprit else ""))
        shape: Markup
        if merge:
            shape = el("rect", {"x": fmt(cx - 7), "y": fmt(cy - 7), "width": "14", "height": "14",
                                "transform": f"rotate(45 {fmt(cx)} {fmt(cy)})", "fill": fill,
                                "stroke": INK, "stroke-width": "1.5"})
        else:
            shape = el("circle", {"cx": fmt(cx), "cy": fmt(cy), "r": "7", "fill": fill, "stroke": INK,
                                  "stroke-width": "1.5"})
        group: list[Child] = [el("title", None, tip), shape]
        if is_culprit:
            group += [el("circle", {"cx": fmt(cx), "cy": fmt(cy), "r": "12", "fill": "none", "stroke": RED,
                                    "stroke-width": "3"}),
                      text(cx, cy - 18, "culprit", fill=RED, **{"text-anchor": "middle", "font-weight": "bold"})]
        if node.commit in ends:
            group.append(text(cx, cy + 24, ends[node.commit], **{"text-anchor": "middle", "font-weight": "bold"}))
        else:
            group.append(text(cx, cy + 24, node.commit[:7], size=9, fill="#57606a", **{"text-anchor": "middle"}))
        attrs = {"class": "commit" + (" culprit" if is_culprit else ""), "data-commit": node.commit,
                 "data-verdict": verdict or "unjudged"}
        body = el("g", attrs, group)
        parts.append(el("a", {"href": f"#c-{node.commit[:12]}"}, body) if verdict else body)
    key_y = height - 12
    legend: list[Child] = []
    for index, (name, colour) in enumerate((("good", GREEN), ("bad", RED), ("skip", AMBER), ("not judged", "#ffffff"))):
        legend += [el("circle", {"cx": fmt(left + index * 90), "cy": fmt(key_y - 4), "r": "5", "fill": colour,
                                 "stroke": INK}),
                   text(left + 9 + index * 90, key_y, name)]
    legend += [el("rect", {"x": fmt(left + 360 - 5), "y": fmt(key_y - 9), "width": "10", "height": "10",
                           "transform": f"rotate(45 {fmt(left + 360)} {fmt(key_y - 4)})", "fill": "#ffffff",
                           "stroke": INK}),
               text(left + 369, key_y, "merge")]
    return frame(width, height, label, parts, legend)
