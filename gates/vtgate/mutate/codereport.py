"""What ``vtgate mutate --code`` prints: the mutation score, a per-operator and a per-file table, the
mutants killed by a crash or a timeout (listed apart), and every survivor as its unified diff with the
gates that ran on it. Data (paths, diffs, gate names) is printed as text, never as markup."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from vtgate.mutate.coderun import CodeReport
from vtgate.output import print_table, say, write_json

COLUMNS = ("mutants", "killed", "survived", "possibly-equivalent", "equivalent", "error")


def _table(title: str, rows: dict[str, dict[str, int]]) -> Table:
    table = Table(title=None, show_edge=False, box=None, pad_edge=False)
    table.add_column(title, no_wrap=True, overflow="fold")
    for column in COLUMNS:
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    for key, row in rows.items():
        denominator = row["mutants"] - row["equivalent"] - row["error"]
        score = f"{row['killed'] / denominator:.0%}" if denominator else "-"
        table.add_row(key, *(str(row[c]) for c in COLUMNS), score)
    return table


def render_code(report: CodeReport, console: Console) -> None:
    if report.baseline_red:
        say(("not used to kill", "yellow"), f" (not green at baseline): {', '.join(report.baseline_red)}", to=console)
    print_table(_table("operator", report.table("operator")), to=console)
    console.print()
    print_table(_table("file", report.table("path")), to=console)
    for status in ("killed-by-crash", "killed-by-timeout", "error"):
        listed = [v for v in report.verdicts if v.status == status]
        if listed:
            console.print()
            say((status, "bold magenta" if status == "error" else "cyan"), f": {len(listed)}", to=console)
            for verdict in listed:
                say(f"  {verdict.mutant.ident}  {verdict.mutant.description}: {verdict.detail}", to=console)
    for status, style in (("possibly-equivalent", "yellow"), ("survived", "bold red")):
        listed = [v for v in report.verdicts if v.status == status]
        for verdict in listed:
            console.print()
            mutant = verdict.mutant
            say((status, style), f": {mutant.ident} ({mutant.function}) {mutant.description}", to=console)
            say(f"  ledger key {mutant.ledger_key}; gates run: {', '.join(verdict.gates_run) or 'none'}"
                + (f"; {verdict.detail}" if verdict.detail else ""), to=console)
            for diff_line in mutant.diff.rstrip("\n").splitlines():
                say(f"    {diff_line}", to=console)
    if report.ledger_unmatched:
        console.print()
        say(("ledger entries no mutant matches", "yellow"),
            f": {len(report.ledger_unmatched)} in {report.ledger} (the code or its three lines of context changed; "
            "the mutant, if still generated, is judged again under a new ledger key: re-confirm it or delete the "
            "entry)", to=console)
        for entry in report.ledger_unmatched:
            say(f"  {entry['digest']}  {entry['id']}", to=console)
    console.print()
    score = report.score
    shown = "n/a" if score is None else f"{score:.1%}"
    cached = len(report.verdicts) - report.evaluated - report.count("equivalent")
    headline = ("ok", "green") if report.exit_code == 0 else ("below the minimum score", "bold red")
    say(headline, f": mutation score {shown} ({report.killed} killed of {report.non_equivalent} non-equivalent; "
        f"{report.count('survived')} survived, {report.count('possibly-equivalent')} possibly equivalent, "
        f"{report.count('equivalent')} equivalent per the ledger); {len(report.verdicts)} of {report.generated} "
        f"generated mutants" + (f" (budget {report.budget}, seed {report.seed})" if report.budget is not None else "")
        + f"; minimum {report.min_score:.0%}; {report.evaluated} evaluated, {max(cached, 0)} from the cache, "
        f"in {report.seconds:.1f} s", to=console)


def write_code_json(report: CodeReport, destination: str) -> None:
    write_json(destination, report.to_json())
