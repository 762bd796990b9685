"""What ``vtgate mutate --code`` prints: the mutation score with the ledger verified and with it
trusted, a per-operator and a per-file table, the mutants killed by a crash or a timeout (listed apart),
every survivor as its unified diff with the gates that ran on it, and every ledger entry this run
refuted (by a gate, or by the differential check with its witness input) or could not verify. Data
(paths, diffs, gate names) is printed as text, never as markup."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from vtgate.mutate.coderun import CodeReport
from vtgate.output import print_table, say, write_json

COLUMNS = ("mutants", "killed", "survived", "possibly-equivalent", "equivalent", "ledger-refuted", "ledger-unverified",
           "error")


def _table(title: str, rows: dict[str, dict[str, int]]) -> Table:
    table = Table(title=None, show_edge=False, box=None, pad_edge=False)
    table.add_column(title, no_wrap=True, overflow="fold")
    for column in COLUMNS:
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("score (verified)", justify="right", no_wrap=True)
    for key, row in rows.items():
        denominator = row["mutants"] - row["equivalent"] - row["error"]
        score = f"{row['killed'] / denominator:.0%}" if denominator else "-"
        table.add_row(key, *(str(row[c]) for c in COLUMNS), score)
    return table


def render_code(report: CodeReport, console: Console) -> None:
    if report.baseline_red:
        say(("not used to kill", "yellow"), f" (not green at baseline): {', '.join(report.baseline_red)}", to=console)
        for name in report.baseline_red:
            say(f"  {name}: {report.baseline_why.get(name, '')}", to=console)
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
    for status, style in (("possibly-equivalent", "yellow"), ("survived", "bold red"), ("ledger-unverified", "yellow"),
                          ("ledger-refuted", "bold red")):
        listed = [v for v in report.verdicts if v.status == status]
        for verdict in listed:
            console.print()
            mutant = verdict.mutant
            say((status, style), f": {mutant.ident} ({mutant.function}) {mutant.description}", to=console)
            say(f"  ledger key {mutant.ledger_key}; gates run: {', '.join(verdict.gates_run) or 'none'}"
                + (f"; {verdict.detail}" if verdict.detail else ""), to=console)
            if verdict.ledger is not None:
                say(f"  the ledger's reason: {verdict.ledger.reason}", to=console)
            for diff_line in mutant.diff.rstrip("\n").splitlines():
                say(f"    {diff_line}", to=console)
    refuted = [v for v in report.verdicts if v.ledger is not None and v.ledger.verdict == "refuted"
               and v.status != "ledger-refuted"]
    if refuted:
        console.print()
        say(("ledger entries refuted by a gate", "bold red"),
            f": {len(refuted)} (killed: counted as killed in both scores; delete the entry from {report.ledger})",
            to=console)
        for verdict in refuted:
            say(f"  {verdict.mutant.ident} (ledger key {verdict.mutant.ledger_key}) {verdict.mutant.description}: "
                f"killed by {verdict.killed_by} ({verdict.detail})", to=console)
    other = [v for v in report.verdicts if v.ledger is not None and v.ledger.versions_note]
    if other:
        console.print()
        say(("ledger entries and versions", "yellow"),
            f": this run's are {_versions(report.versions)}; {len(other)} of the entries judged were not confirmed "
            "under them (each is judged anew here all the same):", to=console)
        for verdict in other:
            assert verdict.ledger is not None
            say(f"  {verdict.mutant.ident}: {verdict.ledger.versions_note}", to=console)
    if report.ledger_unmatched:
        console.print()
        say(("ledger entries no mutant matches", "yellow"),
            f": {len(report.ledger_unmatched)} in {report.ledger} (the code or its three lines of context changed; "
            "the mutant, if still generated, is judged again under a new ledger key: re-confirm it or delete the "
            "entry)", to=console)
        for entry in report.ledger_unmatched:
            say(f"  {entry['digest']}  {entry['id']}", to=console)
    console.print()
    ledger = report.ledger_counts()
    if ledger["entries"]:
        say("ledger", f": {ledger['entries']} entries among the judged mutants: {ledger['verified']} verified (no "
            f"gate killed it and the differential check found no difference over its inputs, at most "
            f"{report.ledger_inputs} each, seed {report.seed}; {ledger['verified_by_shadow']} of them through the "
            f"shadow run), {ledger['refuted_by_gate']} refuted by a gate, "
            f"{ledger['refuted_by_difference']} refuted by the differential check, {ledger['unverified']} unverified (no evidence); versions {_versions(report.versions)}",
            to=console)
    if report.shadow:
        run = report.shadow
        say("shadow run", f": {run['checkable']} of {run['entries']} entries checkable, {len(run['gates'])} gates "
            f"run once in {run['seconds']:.1f} s: {run['same']} gave the original's results on every call, "
            f"{run['differs']} differed on some call, {run['fallback']} more could not be "
            f"checked; the {run['differs'] + run['fallback']} were judged by their own gates"
            + (f"; gates whose shadow result was not the baseline's: {', '.join(sorted(run['disturbed']))}"
               if run["disturbed"] else ""), to=console)
        for verdict in report.verdicts:
            if verdict.shadow.startswith(("fallback: ", "differs: ")) and not verdict.cached:
                why = verdict.shadow.split(": ", 1)[1]
                say(f"  {verdict.mutant.ident}: judged by its gates, {why}", to=console)
    cached = len(report.verdicts) - report.evaluated
    headline = ("ok", "green") if report.exit_code == 0 else ("below the minimum score", "bold red")
    say(headline, f": mutation score {_percent(report.score_verified)} with the ledger verified ({report.killed} "
        f"killed of {report.non_equivalent_verified}), {_percent(report.score)} with the ledger trusted "
        f"({report.killed} of {report.non_equivalent}); {report.count('survived')} survived, "
        f"{report.count('possibly-equivalent')} possibly equivalent, {report.count('ledger-refuted')} ledger-refuted, "
        f"{report.count('ledger-unverified')} ledger-unverified, {report.count('equivalent')} equivalent (verified); "
        f"{len(report.verdicts)} of {report.generated} generated mutants"
        + (f" (budget {report.budget}, seed {report.seed})" if report.budget is not None else "")
        + f"; minimum {report.min_score:.0%} (on the verified score); {report.evaluated} evaluated, "
        f"{max(cached, 0)} from the cache, in {report.seconds:.1f} s", to=console)


def _percent(score: float | None) -> str:
    return "n/a" if score is None else f"{score:.1%}"


def _versions(versions: dict[str, str]) -> str:
    return ", ".join(f"{name} {version}" for name, version in sorted(versions.items())) or "not recorded"


def write_code_json(report: CodeReport, destination: str) -> None:
    write_json(destination, report.to_json())
