"""Reporters for a MutateReport: the kill matrix (gates x run mutations and declared pin mutations,
plus each gate's own controls as one column) as a rich table on stderr, the lists a reviewer acts on
(unmet expectations, vacuous pins, mutations that kill nothing), and ``--json`` (docs/json-formats.md)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from vtgate.mutate.execute import MutateReport, MutationResult
from vtgate.output import print_table, say, write_json

CELL = {"red": ("K", "bold red"), "green": ("·", "green"), "error": ("E", "bold magenta")}
LEGEND = ("K killed (green at baseline, red under the mutation), · survived, E error, "
          "r red but red at baseline too (a deliberate red), ! not what the mutation expected; "
          "own: the gate's own negative controls met")


def _cell(result: MutationResult, gate: str) -> Text:
    actual = result.actual.get(gate)
    if actual is None:
        return Text("")
    want = result.mutation.expected.get(gate)
    text = Text.assemble(CELL[actual] if (actual != "red" or gate in result.kills) else ("r", "yellow"))
    if want is not None and want != actual:
        text.append("!", style="bold red")
    return text


def render(report: MutateReport, console: Console) -> None:
    if report.problem:
        say(("cannot build the kill matrix", "bold red"), f": {report.problem}", to=console)
        for gate_name, gate_result in report.baseline.items():
            if gate_result.status != "green":
                say(f"  {gate_name}: {gate_result.status}: {gate_result.summary}", to=console)
        return
    columns = [r for r in report.mutations if r.mutation.origin != "control"]
    controls = [r for r in report.mutations if r.mutation.origin == "control"]
    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold", title="kill matrix",
                  title_justify="left", collapse_padding=True)
    table.add_column("gate", no_wrap=True)
    for index, _ in enumerate(columns, start=1):
        table.add_column(str(index), justify="center", no_wrap=True)
    table.add_column("own", justify="right", no_wrap=True)
    table.add_column("killed by", justify="right", no_wrap=True)
    kills = report.kills
    for spec in report.gates:
        own = [r for r in controls if spec.name in r.actual]
        met = sum(1 for r in own if r.met)
        own_text = Text(f"{met}/{len(own)}" if own else "-", style="bold red" if own and met < len(own) else "")
        name = Text(f"{spec.name} (vacuous)", style="bold red") if spec.name in report.vacuous else spec.name
        table.add_row(name, *[_cell(r, spec.name) for r in columns], own_text, str(len(kills[spec.name])))
    print_table(table, console)
    say((LEGEND, "dim"), to=console)
    for index, result in enumerate(columns, start=1):
        state = ("met", "green") if result.met else ("UNMET", "bold red")
        say(f"  {index:>2} {result.name} ({result.mutation.kind}) ", state,
            f": kills {len(result.kills)} — {result.mutation.description}", to=console)
        if result.mutation.patch and result.proof:
            shown = (result.proof.get("source_tree_hash") or "")[:12]
            say(f"       patched copy ran source tree {shown}… "
                f"({'differs from' if result.proof.get('differs') else 'SAME AS'} your tree)", to=console)
        for gate, values in result.observed.items():
            say(f"       {gate} measured " + ", ".join(f"{k} = {v}" for k, v in values.items()), to=console)
    unmet = [r for r in report.mutations if not r.met]
    if unmet:
        console.print()
        say(("unmet expectations", "bold red"), ":", to=console)
        for result in unmet:
            for reason in result.unmet:
                say(f"  {result.name}: {reason}", to=console)
    for gate, reasons in sorted(report.vacuous.items()):
        say(("vacuous pin", "bold red"), f" {gate}: " + "; ".join(reasons), to=console)
    if report.partial:
        say(("partial run", "yellow"), f": whether any mutation kills each gate was not judged ({report.partial}); "
            "run without -m / --no-auto / gate selection for the vacuity verdict", to=console)
    nothing = report.kill_nothing
    if nothing:
        say(("mutations that kill nothing", "yellow"), ": " + ", ".join(nothing), to=console)
    if report.errors:
        say(("errors", "bold magenta"), " (never counted as kills):", to=console)
        for result in report.mutations:
            for gate, actual in result.actual.items():
                if actual == "error":
                    summary = result.results[gate].summary if gate in result.results else result.error
                    say(f"  {result.name} / {gate}: {summary}", to=console)
    say(*footer(report), to=console)
    if report.ambient_env:
        shell = " ".join(f"{name}={value}" for name, value in report.ambient_env.items())
        say((f"ambient knobs from your shell reached the probes: {shell} (--isolate-env runs without them)", "yellow"),
            to=console)


def footer(report: MutateReport) -> tuple[tuple[str, str], str]:
    """The verdict (styled) and the counts after it, for ``say(*footer(report))``."""
    met = sum(1 for r in report.mutations if r.met)
    verdict = ("ok", "green") if report.ok else ("FAILED", "bold red")
    return verdict, (f": {len(report.gates)} gates, {len(report.mutations)} mutations ({met} met, "
                     f"{len(report.mutations) - met} unmet), {len(report.vacuous)} vacuous in {report.seconds:.1f} s; "
                     f"{report.probe_runs} probe runs for {report.probe_requests} requests ({report.shared_runs} shared)")


def write_json_report(report: MutateReport, destination: str) -> None:
    write_json(destination, report.to_json())
