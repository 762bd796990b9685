"""One function per page type. Each returns the page's body (``Markup``); ``build`` frames and writes
them. Pages link to each other by relative paths only, so the folder works from ``file://``."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vtgate.htmlsite import svg
from vtgate.htmlsite.graph import bisect_graph
from vtgate.htmlsite.history import Run
from vtgate.htmlsite.markup import Child, Markup, el, join, raw, status_badge, table

KILLED = frozenset({"killed", "killed-by-crash", "killed-by-timeout"})
WINDOW = 8  # tokens shown either side of the first divergent step


def slug(name: str) -> str:
    """A file name for ``name`` that is safe on every file system and unique (a short hash of the name)."""
    clean = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")[:60] or "x"
    return f"{clean}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:8]}"


def gate_href(name: str, depth: int = 0) -> str:
    return "../" * depth + f"gates/{slug(name)}.html"


def file_href(path: str, depth: int = 0) -> str:
    return "../" * depth + f"mutants/{slug(path)}.html"


def short(sha: str | None, n: int = 10) -> str:
    return sha[:n] if sha else "none"


def dl(items: Sequence[tuple[str, Child]]) -> Markup:
    return el("dl", {"class": "facts"}, [[el("dt", None, k), el("dd", None, v)] for k, v in items if v not in (None, "")])


def pre_json(value: Any, limit: int = 6000) -> Markup:
    text = json.dumps(value, indent=1, sort_keys=True)
    if len(text) > limit:
        text = text[:limit] + f"\n… ({len(text) - limit} more characters)"
    return el("pre", None, text)


def golden_file(gate: Mapping[str, Any]) -> dict[str, Any] | None:
    """The golden file a gate names, when it is still there to read (its provenance and margins)."""
    path = gate.get("golden")
    if not path:
        return None
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def provenance_text(golden: Mapping[str, Any] | None) -> str:
    if not golden:
        return ""
    prov = golden.get("provenance", {})
    dirty = " (dirty tree)" if prov.get("tree_dirty") else ""
    return f"blessed {str(prov.get('measured_at', '?'))[:10]} at {short(prov.get('commit'))}{dirty} by {prov.get('by', '?')}"


# --- overview -------------------------------------------------------------------------------------


def overview(run: Run, bisect_pages: Sequence[str], has_history: bool) -> Markup:
    reports = run.reports
    parts: list[Child] = [el("p", None, "Run ", el("strong", None, run.label),
                             f" — {len(run.reports.as_mapping())} report kinds read.")]
    cards: list[Sequence[Child]] = []
    for check in reports.checks:
        counts = ", ".join(f"{n} {s}" for s, n in sorted(check.get("counts", {}).items()))
        cards.append(["vtgate check", status_badge("ok" if check.get("ok") else "red"),
                      f"exit {check.get('exit_code')}; {counts or 'no gates'}; {check.get('seconds', 0):.1f} s; "
                      f"suite {check.get('suite', '?')}", el("a", {"href": "#gates"}, "gates below")])
    if reports.code is not None:
        code = reports.code
        score = code.get("score_verified")
        cards.append(["vtgate mutate --code", status_badge("ok" if code.get("ok") else "red"),
                      f"score {score:.2f} with the ledger verified ({code['killed']} of "
                      f"{code['non_equivalent_verified']} killed), {_score(code.get('score'))} with it trusted; "
                      f"{code['counts'].get('survived', 0)} survived, {code['counts'].get('ledger-refuted', 0)} "
                      "ledger entries refuted" if score is not None else "no score",
                      el("a", {"href": "mutants/index.html"}, "mutants")])
    if reports.mutate is not None:
        mutate = reports.mutate
        cards.append(["vtgate mutate", status_badge("ok" if mutate.get("ok") else "red"),
                      f"{len(mutate['mutations'])} mutations; {len(mutate['vacuous'])} vacuous gates",
                      el("a", {"href": "mutants/index.html#declared"}, "kill matrix")])
    if reports.envdoc is not None:
        envdoc = reports.envdoc
        cards.append(["vtgate envdoc", status_badge("ok" if envdoc.get("ok") else "findings"), envdoc["summary"],
                      el("a", {"href": "envdoc.html"}, "findings")])
    for index, bisect in enumerate(reports.bisects):
        culprits = bisect["culprits"]
        text = (", ".join(f"{short(c['commit'])} {c['subject']}" for c in culprits) if culprits
                else "no culprit")
        cards.append([f"vtbisect run {bisect['range']}", status_badge("culprit" if culprits else "ok"),
                      f"{len(culprits)} culprit(s): {text}", el("a", {"href": bisect_pages[index]}, "graph")])
    parts.append(table(["report", "status", "what", "page"], cards, caption="Reports of this run", id="reports"))
    if reports.checks:
        parts += [el("h2", {"id": "gates"}, "Gates"),
                  el("p", {"class": "muted"}, f"tree under test {reports.root or '?'}",
                     [_ambient(check) for check in reports.checks])]
        rows = []
        for gate in reports.gates:
            rows.append([el("a", {"href": gate_href(gate["name"]), "class": f"gate-link gate-{gate['status']}",
                                  "data-gate": gate["name"]}, gate["name"]),
                         gate["kind"], gate["tier"], status_badge(gate["status"]),
                         gate["summary"][:240] + ("…" if len(gate["summary"]) > 240 else ""),
                         provenance_text(golden_file(gate)) or el("span", {"class": "muted"}, "no golden")])
        parts.append(table(["gate", "kind", "tier", "status", "verdict", "provenance"], rows,
                           caption=f"{len(rows)} gates", id="gate-table"))
    if has_history:
        parts.append(el("p", None, el("a", {"href": "history.html"}, "History across runs"),
                        " — trends per perf gate, status per gate and run."))
    return join(parts)


def _ambient(check: Mapping[str, Any]) -> Child:
    ambient = check.get("ambient_env") or {}
    if not ambient:
        return None
    return "; ambient knobs from the caller's shell reached the probes: " + ", ".join(
        f"{k}={v}" for k, v in sorted(ambient.items()))


# --- one gate -------------------------------------------------------------------------------------


def first_divergence(golden: Sequence[Any], measured: Sequence[Any]) -> int | None:
    for index, (a, b) in enumerate(zip(golden, measured, strict=False)):
        if a != b:
            return index
    return min(len(golden), len(measured)) if len(golden) != len(measured) else None


def margin_text(margins: Any, index: int) -> str:
    if isinstance(margins, list) and index < len(margins) and isinstance(margins[index], (int, float)):
        return f"{margins[index]:.4g}"
    return "–"


def divergence(gate: Mapping[str, Any], golden: Mapping[str, Any] | None) -> Markup | None:
    """The first divergent step of a token stream: both streams around it, and both margins there."""
    measured, pinned = gate.get("measured", {}), gate.get("pinned", {})
    now = measured.get("tokens")
    then = pinned.get("tokens")
    golden_value = (golden or {}).get("value", {})
    if not isinstance(then, list) and isinstance(golden_value.get("tokens"), list):
        then = golden_value["tokens"]
    if not isinstance(now, list) or not isinstance(then, list):
        return None
    pinned_margins = pinned.get("margins", golden_value.get("margins"))
    measured_margins = measured.get("margins")
    first = first_divergence(then, now)
    what = "token"
    if first is None and isinstance(pinned_margins, list) and isinstance(measured_margins, list):
        moved = [i for i, (a, b) in enumerate(zip(pinned_margins, measured_margins, strict=False)) if a != b]
        if moved:
            first, what = moved[0], "margin"
    if first is None:
        return el("section", {"id": "streams"}, el("h2", None, "Token streams"),
                  el("p", None, f"Both streams are identical ({len(now)} tokens)."))
    start, stop = max(0, first - WINDOW), min(max(len(now), len(then)), first + WINDOW + 1)
    positions = list(range(start, stop))

    def cells(stream: Sequence[Any]) -> list[Markup]:
        out = []
        for i in positions:
            value = stream[i] if i < len(stream) else "—"
            other = (then if stream is now else now)
            differs = i >= len(other) or i >= len(stream) or other[i] != stream[i]
            cls = "tok" + (" diff" if differs else "") + (" first" if i == first else "")
            out.append(el("td", {"class": cls}, value))
        return out

    head = [el("th", {"scope": "col", "class": "first" if i == first else None}, i) for i in positions]
    rows = [el("tr", None, el("th", {"scope": "row"}, "golden"), cells(then)),
            el("tr", None, el("th", {"scope": "row"}, "measured"), cells(now))]
    if isinstance(pinned_margins, list):
        rows.append(el("tr", None, el("th", {"scope": "row"}, "golden margin"),
                       [el("td", {"class": "tok"}, margin_text(pinned_margins, i)) for i in positions]))
    if isinstance(measured_margins, list):
        rows.append(el("tr", None, el("th", {"scope": "row"}, "measured margin"),
                       [el("td", {"class": "tok"}, margin_text(measured_margins, i)) for i in positions]))
    if what == "token":
        a = then[first] if first < len(then) else "nothing (stream ended)"
        b = now[first] if first < len(now) else "nothing (stream ended)"
        headline = f"First divergent step: position {first}, token {a} (golden) -> {b} (measured)"
    else:
        headline = (f"Tokens all hold; first margin change at position {first}: "
                    f"{margin_text(pinned_margins, first)} (golden) -> {margin_text(measured_margins, first)} (measured)")
    margins_note = (f"; golden margin there {margin_text(pinned_margins, first)}"
                    if isinstance(pinned_margins, list) and what == "token" else "")
    stream_table = el("table", {"class": "streams"},
                      el("caption", None, f"positions {start}..{stop - 1} of {len(then)} (golden) / {len(now)} (measured)"),
                      el("thead", None, el("tr", None, el("th", {"scope": "col"}, "position"), head)),
                      el("tbody", None, rows))
    return el("section", {"id": "divergence"}, el("h2", None, headline + margins_note), stream_table)


def perf_section(gate: Mapping[str, Any], trend_points: Sequence[svg.TrendPoint]) -> Markup | None:
    measured, pinned = gate.get("measured", {}), gate.get("pinned", {})
    if gate.get("kind") != "perf" or not isinstance(measured.get("ratio"), (int, float)):
        return None
    threshold = pinned.get("min_ratio")
    ratio, low, high = float(measured["ratio"]), float(measured["low"]), float(measured["high"])
    confidence = measured.get("confidence")
    conf = f"{confidence * 100:.4g}% " if isinstance(confidence, (int, float)) else ""
    parts: list[Child] = [
        el("h2", None, "Speed ratio (candidate / reference)"),
        el("figure", None, svg.interval_plot(ratio, low, high, threshold if isinstance(threshold, (int, float)) else None,
                                             f"ratio {ratio:.3f}, {conf}interval [{low:.3f}, {high:.3f}], "
                                             f"min_ratio {threshold}"),
           el("figcaption", None, f"ratio {ratio:.3f}, {conf}one-sided interval [{low:.3f}, {high:.3f}]; "
                                  f"min_ratio {threshold}; {measured.get('method', '')}")),
        el("h2", None, "Every timed leg"),
        el("figure", None, svg.scatter(measured.get("values", []), f"per-leg metric of {gate['name']} by round and role"),
           el("figcaption", None, f"{measured.get('legs', '?')} legs over {measured.get('rounds', '?')} rounds; "
                                  f"host load per core {measured.get('host_load_per_core')}")),
    ]
    looks = measured.get("looks") or []
    if looks:
        parts.append(table(["look", "rounds", "ratio", "low", "high", "decision"],
                           [[i + 1, lk.get("rounds"), lk.get("ratio"), lk.get("low"), lk.get("high"), lk.get("decision")]
                            for i, lk in enumerate(looks)], caption="Sequential looks"))
    stages = measured.get("stages") or {}
    if stages:
        parts.append(table(["phase", "stage", "change"],
                           [[phase, stage, f"{float(v) * 100:+.1f}%" if isinstance(v, (int, float)) else v]
                            for phase, moved in stages.items() if isinstance(moved, dict) for stage, v in moved.items()],
                           caption="Stage time change (candidate vs reference)"))
    if trend_points:
        parts += [el("h2", None, "Trend across runs"),
                  el("figure", None, svg.trend(trend_points, threshold if isinstance(threshold, (int, float)) else None,
                                               f"ratio of {gate['name']} per run, regressions marked with their commit"))]
    return el("section", {"id": "perf"}, parts)


def gate_page(gate: Mapping[str, Any], trend_points: Sequence[svg.TrendPoint],
              statuses: Sequence[tuple[int, str, str]]) -> Markup:
    golden = golden_file(gate)
    facts: list[tuple[str, Child]] = [
        ("status", status_badge(gate["status"])), ("kind", gate["kind"]), ("tier", gate["tier"]),
        ("verdict", gate["summary"]), ("error", f"{gate.get('error_kind')}: {gate['error']}" if gate.get("error") else None),
        ("seconds", f"{gate['seconds']:.2f}"), ("line in suite", gate.get("line")),
        ("env pin", ", ".join(f"{k}={v}" for k, v in sorted(gate.get("env", {}).items()))),
        ("ambient knobs", ", ".join(f"{k}={v}" for k, v in sorted((gate.get("ambient_env") or {}).items()))),
        ("deliberately red", json.dumps(gate["deliberate_red"]) if gate.get("deliberate_red") else None),
        ("golden", gate.get("golden")),
        ("failed cases", ", ".join((gate.get("cases") or {}).get("failed_ids", [])[:40])),
    ]
    parts: list[Child] = [dl(facts)]
    section = divergence(gate, golden)
    if section is not None:
        parts.append(section)
    perf = perf_section(gate, trend_points)
    if perf is not None:
        parts.append(perf)
    if golden:
        prov = dict(golden.get("provenance", {}))
        parts += [el("h2", None, "Provenance of the golden"),
                  dl([(k, json.dumps(v) if isinstance(v, (dict, list)) else str(v)) for k, v in sorted(prov.items())])]
        history = golden.get("history") or []
        if history:
            parts.append(table(["at", "commit", "reason", "from", "to"],
                               [[h.get("at"), short(h.get("commit")), h.get("reason"), str(h.get("from"))[:120],
                                 str(h.get("to"))[:120]] for h in history], caption="Re-bless history"))
    if len(statuses) > 1:
        parts.append(table(["run", "status"], [[label, status_badge(s)] for _, label, s in statuses],
                           caption="This gate across runs"))
    parts += [el("h2", None, "Measured and pinned"),
              el("details", None, el("summary", None, "measured"), pre_json(gate.get("measured", {}))),
              el("details", None, el("summary", None, "pinned"), pre_json(gate.get("pinned", {})))]
    return join(parts)


# --- mutants --------------------------------------------------------------------------------------


def mutants_index(code: Mapping[str, Any] | None, mutate: Mapping[str, Any] | None,
                  linked: frozenset[str] = frozenset()) -> Markup:
    """The --code score and tables, and the declared mutations' kill matrix; ``linked``: the gates
    that have a page in this site."""
    parts: list[Child] = []
    if code is not None:
        ledger = code["ledger_check"]
        parts += [el("h2", None, "Generated code mutants (vtgate mutate --code)"),
                  el("p", None, f"score {_score(code.get('score_verified'), 3)} with the ledger verified "
                     f"({code['killed']} killed of {code['non_equivalent_verified']}), "
                     f"{_score(code.get('score'), 3)} with it trusted ({code['killed']} of {code['non_equivalent']}); "
                     f"{code['sampled']} judged of {code['generated']} generated (budget {code['budget']}, "
                     f"seed {code['seed']}); min score {code['min_score']} (on the verified score)"),
                  el("p", None, f"ledger: {ledger['entries']} entries judged, {ledger['verified']} verified, "
                     f"{ledger['refuted_by_gate']} refuted by a gate, {ledger['refuted_by_difference']} by the "
                     f"differential check ({ledger['inputs']} inputs, seed {ledger['seed']}), {ledger['unverified']} "
                     "unverified; versions " + (", ".join(f"{k} {v}" for k, v in sorted(code["versions"].items()))
                                                or "not recorded")),
                  table(["status", "mutants"], [[status_badge(k), v] for k, v in code["counts"].items()],
                        caption="Mutants per status")]
        columns = ("mutants", "killed", "survived", "possibly-equivalent", "equivalent", "ledger-refuted",
                   "ledger-unverified", "error")
        heads = [c.replace("-", " ") for c in columns]
        rows = []
        for path, c in sorted(code["by_file"].items()):
            rows.append([el("a", {"href": f"{slug(path)}.html", "class": "file-link"}, path),
                         *(c.get(k) for k in columns)])
        parts.append(table(["file", *heads], rows, caption="Per source file"))
        parts.append(table(["operator", *heads], [[op, *(c.get(k) for k in columns)]
                                                  for op, c in sorted(code["by_operator"].items())],
                           caption="Per operator"))
    if mutate is not None:
        gates = sorted(mutate.get("kills", {}))
        rows = []
        for m in mutate["mutations"]:
            rows.append([m["name"], m["kind"], status_badge("ok" if m["met"] else "red"),
                         ", ".join(m.get("kills", [])) or "nothing", "; ".join(m.get("unmet", []))])
        parts += [el("h2", {"id": "declared"}, "Declared mutations (vtgate mutate)"),
                  el("p", None, f"{len(mutate['mutations'])} mutations, exit {mutate['exit_code']}; vacuous gates: "
                     + (", ".join(mutate["vacuous"]) or "none")
                     + (f"; {mutate['problem']}" if mutate.get("problem") else "")
                     + (f"; partial run: {mutate['partial']}" if mutate.get("partial") else "")),
                  table(["mutation", "kind", "expectation", "kills", "unmet"], rows, caption="Mutations"),
                  table(["gate", "killed by"], [[el("a", {"href": gate_href(g, 1)}, g) if g in linked else g,
                                                  ", ".join(mutate["kills"][g]) or "nothing"] for g in gates],
                        caption="Kill matrix per gate", id="kill-matrix")]
    return join(parts)


SURVIVING = frozenset({"survived", "ledger-refuted", "ledger-unverified"})  # count against the verified score


def _score(score: float | None, places: int = 2) -> str:
    return "n/a" if score is None else f"{score:.{places}f}"


def line_class(statuses: Sequence[str]) -> str:
    if SURVIVING & set(statuses):
        return "m-survived"
    if statuses and all(s in KILLED for s in statuses):
        return "m-killed"
    return "m-other"


def diff_block(diff: str) -> Markup:
    lines: list[Child] = []
    for text in diff.splitlines():
        cls = ("diffline-add" if text.startswith("+") and not text.startswith("+++")
               else "diffline-del" if text.startswith("-") and not text.startswith("---") else None)
        lines += [el("span", {"class": cls}, text), raw("\n")]
    return el("pre", {"class": "diff"}, lines)


def mutant_file_page(path: str, mutants: Sequence[Mapping[str, Any]], source: str | None) -> Markup:
    by_line: dict[int, list[Mapping[str, Any]]] = {}
    for m in mutants:
        by_line.setdefault(int(m["line"]), []).append(m)
    survivors = [m for m in mutants if m["status"] in SURVIVING]
    parts: list[Child] = [
        el("p", None, f"{len(mutants)} mutants judged in this file: "
           + ", ".join(f"{sum(1 for m in mutants if m['status'] == s)} {s}"
                       for s in sorted({m['status'] for m in mutants}))),
        el("p", {"class": "legend"}, "Mutated lines: ", el("span", {"class": "m-killed"}, "all killed"),
           el("span", {"class": "m-survived"}, "a survivor"),
           el("span", {"class": "m-other"}, "equivalent, possibly equivalent or error")),
    ]
    if survivors:
        parts.append(el("h2", {"id": "survivors"}, f"Survivors ({len(survivors)})"))
        for m in survivors:
            parts.append(el("section", {"class": "survivor", "id": f"m-{slug(m['id'])}"},
                            el("h3", None, status_badge(m["status"]),
                               f" line {m['line']} in {m['function']}: {m['operator']} — {m['description']}"),
                            el("p", None, m.get("detail") or ""),
                            el("p", None, f"the ledger's reason: {m['ledger']['reason']}") if m.get("ledger") else "",
                            diff_block(m.get("diff", ""))))
    others = [m for m in mutants if m["status"] not in SURVIVING]
    if others:
        parts.append(el("h2", None, f"Other mutants ({len(others)})"))
        for m in others:
            parts.append(el("details", {"id": f"m-{slug(m['id'])}"},
                            el("summary", None, status_badge(m["status"]),
                               f" line {m['line']} {m['operator']}: {m['description']}"
                               + (f" — killed by {m['killed_by']}" if m.get("killed_by") else "")),
                            el("p", None, m.get("detail") or ""), diff_block(m.get("diff", ""))))
    parts.append(el("h2", None, "Source"))
    if source is None:
        parts.append(el("p", {"class": "muted"}, "The source file could not be read here (give --root the tree "
                                                 "the mutants were made in); the diffs above show each mutated line."))
    else:
        rows = []
        for number, text in enumerate(source.splitlines(), start=1):
            here = by_line.get(number, [])
            cls = line_class([m["status"] for m in here]) if here else None
            label = "; ".join(f"{m['status']}: {m['operator']}" for m in here)
            rows.append(el("tr", {"class": cls, "id": f"L{number}", "title": label or None},
                           el("td", {"class": "n"}, number),
                           el("td", {"class": "mk"}, ", ".join(sorted({m["status"] for m in here}))),
                           el("td", None, text)))
        parts.append(el("table", {"class": "src"}, el("caption", None, path),
                        el("thead", None, el("tr", None, el("th", {"scope": "col"}, "line"),
                                             el("th", {"scope": "col"}, "mutants"),
                                             el("th", {"scope": "col"}, "code"))),
                        el("tbody", None, rows)))
    return join(parts)


# --- bisection ------------------------------------------------------------------------------------


def bisect_page(report: Mapping[str, Any]) -> Markup:
    graph = bisect_graph(report)
    verdicts: dict[str, str] = {}
    for step in report["steps"]:
        verdicts[step["commit"]] = step["verdict"]
    culprits = {c["commit"]: ", ".join(c["gates"]) for c in report["culprits"]}
    ends = {report["good"]: "GOOD", report["bad"]: "BAD"}
    subjects = {n.commit: n.subject for n in graph.nodes}
    subjects.update({c["commit"]: c["subject"] for c in report["culprits"]})
    parts: list[Child] = [
        el("p", None, f"{report['candidates']} candidates in {report['range']}, gates {', '.join(report['gates'])}; "
                      f"{report['evaluations']} evaluations, {report['judgements']} judgements, {report['rounds']} "
                      f"rounds, {report['seconds']:.1f} s."),
        el("figure", {"id": "graph"},
           svg.commit_graph(graph, verdicts, culprits, ends,
                            f"commit graph of {report['range']}: {len(graph.nodes)} commits, "
                            f"{len(verdicts)} judged, culprits: "
                            + (", ".join(c[:10] for c in culprits) or "none")),
           el("figcaption", None, "Oldest left, BAD right; BAD's first-parent line on the top row, branches below; "
                                  "diamonds are merges." + (f" Note: {graph.note}." if graph.note else ""))),
    ]
    parts.append(el("h2", {"id": "culprits"}, f"Culprits ({len(report['culprits'])})"))
    for c in report["culprits"]:
        proof = [[label, el("a", {"href": f"#step-{ref.split()[-1]}"}, ref) if ref.startswith("step ") else ref]
                 for label, ref in c.get("proof", {}).items()]
        parts.append(el("section", {"class": "culprit", "id": f"culprit-{c['commit'][:12]}"},
                        el("h3", None, f"{short(c['commit'])} {c['subject']}"),
                        dl([("commit", c["commit"]), ("gates", ", ".join(c["gates"])), ("kind", c["kind"]),
                            ("parent", c.get("parent")), ("masked by", c.get("masked_by")),
                            ("exact", "yes" if c.get("exact") else "no: " + ", ".join(short(x) for x in c["candidates"])),
                            ("reverted while found", ", ".join(short(r) for r in c.get("reverts", []))),
                            ("note", c.get("note"))]),
                        table(["evidence", "step"], proof, caption="The judgements that prove it")))
    if report.get("dropped"):
        parts.append(table(["gate", "why not bisected"], sorted(report["dropped"].items()), caption="Dropped gates"))
    rows = []
    seen: set[str] = set()
    for step in report["steps"]:
        anchor = None
        if step["commit"] not in seen:
            seen.add(step["commit"])
            anchor = f"c-{step['commit'][:12]}"
        gates = ", ".join(f"{g} {v}" for g, v in step.get("gates", {}).items())
        rows.append(el("tr", {"id": f"step-{step['number']}"},
                       el("td", {"id": anchor}, step["number"]), el("td", {"class": "mono"}, short(step["commit"])),
                       el("td", None, subjects.get(step["commit"], "")), el("td", None, status_badge(step["verdict"])),
                       el("td", None, gates), el("td", None, step["phase"]), el("td", None, step["round"]),
                       el("td", None, "cached" if step["cached"] else f"{step['seconds']:.2f} s"),
                       el("td", None, step.get("note", ""))))
    parts.append(el("h2", None, "Every judged step"))
    parts.append(el("table", {"id": "steps"}, el("caption", None, f"{len(report['steps'])} steps, in order"),
                    el("thead", None, el("tr", None, [el("th", {"scope": "col"}, h) for h in
                                                       ("step", "commit", "subject", "verdict", "gates", "phase",
                                                        "round", "time", "note")])),
                    el("tbody", None, rows)))
    if report.get("notes"):
        parts += [el("h2", None, "Notes"), el("ul", None, [el("li", None, n) for n in report["notes"]])]
    recipe = report.get("recipe", {})
    parts += [el("h2", None, "Reproduce"), el("pre", None, recipe.get("reproduce", "")),
              el("details", None, el("summary", None, "recipe"), pre_json(recipe))]
    return join(parts)


# --- envdoc ---------------------------------------------------------------------------------------


def envdoc_page(report: Mapping[str, Any]) -> Markup:
    parts: list[Child] = [el("p", None, status_badge("ok" if report["ok"] else "findings"), " ", report["summary"]),
                          dl([("doc", report["doc"]), ("prefix", report["prefix"] or "(all)"),
                              ("files", f"{report['files']['scanned']} scanned, {report['files']['parsed']} parsed"),
                              ("seconds", report["seconds"])])]
    for key in ("undocumented", "stale", "default_mismatch", "dynamic", "incomplete", "allowlist"):
        items = report.get(key) or []
        if items:
            headers = sorted({k for item in items for k in item})
            parts.append(table(headers, [[item.get(h) for h in headers] for item in items],
                               caption=f"{key.replace('_', ' ')} ({len(items)})"))
    if not any(report.get(k) for k in ("undocumented", "stale", "default_mismatch", "dynamic", "incomplete",
                                       "allowlist")):
        parts.append(el("p", None, "No findings: every knob the source reads is documented, and every documented "
                                   "knob is read."))
    for note in report.get("notes", []):
        parts.append(el("p", {"class": "muted"}, note))
    return join(parts)


# --- history --------------------------------------------------------------------------------------


@dataclass
class GateHistory:
    statuses: dict[str, list[tuple[int, str, str]]]  # gate -> [(run index, run label, status)]
    trends: dict[str, list[svg.TrendPoint]]  # perf gate -> points
    thresholds: dict[str, float | None]


def gate_history(runs: Sequence[Run]) -> GateHistory:
    statuses: dict[str, list[tuple[int, str, str]]] = {}
    trends: dict[str, list[svg.TrendPoint]] = {}
    thresholds: dict[str, float | None] = {}
    for index, run in enumerate(runs):
        for gate in run.reports.gates:
            statuses.setdefault(gate["name"], []).append((index, run.label, gate["status"]))
            measured = gate.get("measured", {})
            if gate.get("kind") == "perf" and isinstance(measured.get("ratio"), (int, float)):
                points = trends.setdefault(gate["name"], [])
                before = points[-1].status if points else None
                regression = gate["status"] == "red" and before is not None and before != "red"
                points.append(svg.TrendPoint(run.label, run.commit, float(measured["ratio"]), float(measured["low"]),
                                             float(measured["high"]), gate["status"], regression))
                threshold = gate.get("pinned", {}).get("min_ratio")
                thresholds[gate["name"]] = float(threshold) if isinstance(threshold, (int, float)) else None
    return GateHistory(statuses, trends, thresholds)


def history_page(runs: Sequence[Run], history: GateHistory, linked: frozenset[str] = frozenset()) -> Markup:
    """Every run, a trend per perf gate, every gate's status per run; ``linked``: gates with a page."""

    def name_of(gate: str) -> Child:
        return el("a", {"href": gate_href(gate)}, gate) if gate in linked else gate

    parts: list[Child] = []
    if len(runs) < 2:
        parts.append(el("p", None, "One run only: build with --history DIR on every run (e.g. nightly) to see trends."))
    parts.append(table(["run", "commit", "time", "check", "mutation score (ledger verified)", "bisect culprits"],
                       [[i + 1, r.commit or "none", r.time,
                         (", ".join("ok" if c.get("ok") else "red" for c in r.reports.checks) or "–"),
                         (f"{r.reports.code['score_verified']:.3f}" if r.reports.code is not None
                          and r.reports.code.get("score_verified") is not None else "–"),
                         sum(len(b["culprits"]) for b in r.reports.bisects)] for i, r in enumerate(runs)],
                       caption=f"{len(runs)} runs, oldest first"))
    for name, points in sorted(history.trends.items()):
        regressions = [p for p in points if p.regression]
        parts += [el("h2", None, name_of(name), " — ratio per run"),
                  el("figure", None, svg.trend(points, history.thresholds.get(name),
                                               f"ratio of {name} per run, regressions marked with their commit"),
                     el("figcaption", None, "regressions: " + (", ".join(f"{p.run}" for p in regressions) or "none")))]
    if history.statuses and len(runs) > 1:
        rows = []
        for name, seen in sorted(history.statuses.items()):
            by_run = {index: status for index, _, status in seen}
            rows.append([name_of(name)] + [status_badge(by_run[i]) if i in by_run else "–" for i in range(len(runs))])
        parts.append(table(["gate"] + [f"{i + 1}: {r.label}" for i, r in enumerate(runs)], rows,
                           caption="Status of every gate per run"))
    return join(parts)
