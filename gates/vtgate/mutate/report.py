"""Reporters for a MutateReport: the kill matrix (gates x run mutations and declared pin mutations,
plus each gate's own controls as one column) as a rich table on stderr, the lists a reviewer acts on
(unmet expectations, vacuous pins, mutations that kill nothing), and ``--json`` (docs/json-formats.md)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from vtgate.mutate.execute import MutateReport, MutationResult
from vtgate.output import write_json

CELL = {"red": "[bold red]K[/]", "green": "[green]·[/]", "error": "[bold magenta]E[/]"}
LEGEND = ("[dim]K killed (green at baseline, red under the mutation), · survived, E error, "
          "r red but red at baseline too (a deliberate red), ! not what the mutation expected; "
          "own: the gate's own negative controls met[/]")


def _cell(result: MutationResult, gate: str) -> str:
    actual = result.actual.get(gate)
    if actual is None:
        return ""
    want = result.mutation.expected.get(gate)
    text = CELL[actual] if (actual != "red" or gate in result.kills) else "[yellow]r[/]"
    if want is not None and want != actual:
        text += "[bold red]![/]"
    return text


def render(report: MutateReport, console: Console) -> None:
    if report.problem:
        console.print(f"[bold red]cannot build the kill matrix[/]: {report.problem}")
        for name, gate_result in report.baseline.items():
            if gate_result.status != "green":
                console.print(f"  {name}: {gate_result.status}: {gate_result.summary}", markup=False)
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
        own_text = f"{met}/{len(own)}" if own else "-"
        if own and met < len(own):
            own_text = f"[bold red]{own_text}[/]"
        name = f"[bold red]{spec.name} (vacuous)[/]" if spec.name in report.vacuous else spec.name
        table.add_row(name, *[_cell(r, spec.name) for r in columns], own_text, str(len(kills[spec.name])))
    console.print(table)
    console.print(LEGEND, highlight=False)
    for index, result in enumerate(columns, start=1):
        state = "[green]met[/]" if result.met else "[bold red]UNMET[/]"
        console.print(f"  {index:>2} {result.name} ({result.mutation.kind}) {state}: "
                      f"kills {len(result.kills)} — {result.mutation.description}", highlight=False)
        if result.mutation.patch and result.proof:
            shown = (result.proof.get("source_tree_hash") or "")[:12]
            console.print(f"       patched copy ran source tree {shown}… "
                          f"({'differs from' if result.proof.get('differs') else 'SAME AS'} your tree)")
        for gate, values in result.observed.items():
            console.print(f"       {gate} measured " + ", ".join(f"{k} = {v}" for k, v in values.items()))
    unmet = [r for r in report.mutations if not r.met]
    if unmet:
        console.print("\n[bold red]unmet expectations[/]:")
        for result in unmet:
            for reason in result.unmet:
                console.print(f"  {result.name}: {reason}", markup=False)
    for gate, reasons in sorted(report.vacuous.items()):
        console.print(f"[bold red]vacuous pin[/] {gate}: " + "; ".join(reasons), highlight=False)
    nothing = report.kill_nothing
    if nothing:
        console.print("[yellow]mutations that kill nothing[/]: " + ", ".join(nothing))
    if report.errors:
        console.print("[bold magenta]errors[/] (never counted as kills):")
        for result in report.mutations:
            for gate, actual in result.actual.items():
                if actual == "error":
                    console.print(f"  {result.name} / {gate}: {result.results[gate].summary if gate in result.results else result.error}",
                                  markup=False)
    console.print(footer(report))


def footer(report: MutateReport) -> str:
    met = sum(1 for r in report.mutations if r.met)
    verdict = "[green]ok[/]" if report.ok else "[bold red]FAILED[/]"
    return (f"{verdict}: {len(report.gates)} gates, {len(report.mutations)} mutations ({met} met, "
            f"{len(report.mutations) - met} unmet), {len(report.vacuous)} vacuous in {report.seconds:.1f} s; "
            f"{report.probe_runs} probe runs for {report.probe_requests} requests ({report.shared_runs} shared)")


def write_json_report(report: MutateReport, destination: str) -> None:
    write_json(destination, report.to_json())
