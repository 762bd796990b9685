"""The vtgate typer application. Each command lives in its own module under vtgate.cli.commands and
registers itself on ``app`` when vtgate.cli.main imports it."""

from __future__ import annotations

import typer

from vtgate import __version__


def _show_version(value: bool) -> None:
    if value:
        print(f"vtgate {__version__}")
        raise typer.Exit(0)


app = typer.Typer(
    name="vtgate",
    help="Declarative numerical gates for inference engines: check, bless, mutate, envdoc, report.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain click help: no rich markup parsed in help texts (an option's help naming [tool.vtgate] stays
    # whole) and no option name cut with an ellipsis at 80 columns.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_show_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """vtgate: gates that pin an engine's exact numerics, with provenance."""
