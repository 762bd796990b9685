"""The vtbisect typer application; commands register themselves on ``app`` from their modules."""

from __future__ import annotations

import typer

from vtbisect import __version__


def _show_version(value: bool) -> None:
    if value:
        print(f"vtbisect {__version__}")
        raise typer.Exit(0)


app = typer.Typer(
    name="vtbisect",
    help="Automated first-bad-commit bisection in isolated worktrees: parallel, cached, flake-aware.",
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
    """vtbisect: find every first bad commit, with the evidence written."""
