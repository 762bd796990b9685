"""``vtgate list``: the suite's gates, their kinds, tiers, probes, pins and env pins."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from vtgate.cli.app import app
from vtgate.cli.commands.check import ROOT_OPTION, SUITE_OPTION, config_error
from vtgate.errors import SuiteError
from vtgate.kinds import get_kind
from vtgate.output import console, print_table, say, table_width
from vtgate.suite.goldens import display_path
from vtgate.suite.load import load_suite, select_gates
from vtgate.suite.records import GateSpec

COLUMNS = ("gate", "kind", "tier", "probe", "pin", "env pin", "line")


def _row(spec: GateSpec, root: Path) -> tuple[str, ...]:
    """One gate's cells, in the order of ``COLUMNS``."""
    kind = get_kind(spec.kind)
    if kind.pin_source == "golden" and spec.golden is not None:
        pin = display_path(spec.golden, root) + ("" if spec.golden.is_file() else " (missing)")
    elif kind.pin_source == "inline":
        pin = kind.describe_pin(kind.inline_pin(spec))
    else:
        pin = "-"
    if spec.deliberate_red:
        pin += f" [deliberate red {spec.deliberate_red.issue}]"
    env = " ".join(f"{k}={v}" for k, v in spec.env.items())
    return spec.name, spec.kind, spec.tier, str(spec.probe or kind.default_probe), pin, env, str(spec.line or "")


@app.command("list")
def list_gates(
    suite: Path = SUITE_OPTION,
    root: Path = ROOT_OPTION,
    keyword: str = typer.Option(None, "-k", help="Select gates whose name/kind/tier match EXPR (and/or/not)."),
) -> int:
    """Show the suite: one line per gate."""
    try:
        loaded = load_suite(suite)
        gates = select_gates(loaded, None, keyword, opt_in=keyword is None)
    except SuiteError as error:
        raise config_error(error) from None
    rows = [_row(spec, loaded.root) for spec in gates]
    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    # Every column holds something a user copies (a gate name for --gate, a probe, a golden's path, a
    # knob): never folded or cut. When the table is wider than the terminal, one block a gate instead.
    for column in COLUMNS:
        table.add_column(column, no_wrap=True)
    for row in rows:
        table.add_row(*row)
    if table_width(table, console) <= console.width:
        print_table(table)
    else:
        for name, kind, tier, probe, pin, env, line in rows:
            say((name, "bold"), f"  {kind}, {tier}, {probe}" + (f", line {line}" if line else ""))
            say(f"pin {pin}", indent=4)
            if env:
                say(f"env pin {env}", indent=4)
    say(f"{len(gates)} gates in {display_path(loaded.path)}")
    return 0 if gates else 5
