"""``vtgate list``: the suite's gates, their kinds, tiers, probes, pins and env pins."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from vtgate.app import app
from vtgate.commands.check import ROOT_OPTION, SUITE_OPTION, config_error
from vtgate.errors import SuiteError
from vtgate.goldens import display_path
from vtgate.kinds import get_kind
from vtgate.output import print_table, say
from vtgate.suite import load_suite, select_gates


@app.command("list")
def list_gates(
    suite: Path = SUITE_OPTION,
    root: Path = ROOT_OPTION,
    keyword: str = typer.Option(None, "-k", help="Only gates whose name/kind/tier match EXPR."),
) -> int:
    """Show the suite: one line per gate."""
    try:
        loaded = load_suite(suite)
        gates = select_gates(loaded, None, keyword, opt_in=keyword is None)
    except SuiteError as error:
        raise config_error(error) from None
    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    # Every column holds something a user copies (a gate name for --gate, a probe, a golden's path, a
    # knob): never folded or cut; a line wider than the terminal is wrapped by the terminal.
    for column in ("gate", "kind", "tier", "probe", "pin", "env pin", "line"):
        table.add_column(column, no_wrap=True)
    for spec in gates:
        kind = get_kind(spec.kind)
        if kind.pin_source == "golden" and spec.golden is not None:
            pin = display_path(spec.golden, loaded.root) + ("" if spec.golden.is_file() else " (missing)")
        elif kind.pin_source == "inline":
            pin = kind.describe_pin(kind.inline_pin(spec))
        else:
            pin = "-"
        env = " ".join(f"{k}={v}" for k, v in spec.env.items())
        if spec.deliberate_red:
            pin += f" [deliberate red {spec.deliberate_red.issue}]"
        table.add_row(spec.name, spec.kind, spec.tier, str(spec.probe or kind.default_probe), pin, env,
                      str(spec.line or ""))
    print_table(table)
    say(f"{len(gates)} gates in {display_path(loaded.path)}")
    return 0 if gates else 5
