"""Entry point of the ``vtengine`` console script: generate, score, bench, arms, export.

Human output goes to stderr through rich (NO_COLOR honoured); ``--json PATH|-`` writes machine output.
"""

from __future__ import annotations

import sys

import typer
from rich.console import Console

from vtengine import __version__
from vtengine.exitcodes import ExitCode

console = Console(stderr=True, highlight=False)


def _show_version(value: bool) -> None:
    if value:
        print(f"vtengine {__version__}")
        raise typer.Exit(0)


app = typer.Typer(
    name="vtengine",
    help="A small Llama-architecture engine with a bit-exact default arm and opt-in kernel arms.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_show_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """vtengine: the reference engine."""


def main(argv: list[str] | None = None) -> None:
    try:
        result = app(args=argv, standalone_mode=False, prog_name="vtengine")
    except typer.Exit as stop:
        sys.exit(stop.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        console.print("interrupted")
        sys.exit(130)
    except Exception as error:  # noqa: BLE001 - the last line of defence: say it, exit 2 or 3
        if hasattr(error, "show") and hasattr(error, "exit_code"):  # a click-style usage error
            error.show()
            sys.exit(ExitCode.USAGE)
        console.print_exception(show_locals=False)
        console.print("[bold red]internal error[/]: this is a bug in vtengine; the traceback is above")
        sys.exit(ExitCode.INTERNAL)
    sys.exit(int(result) if isinstance(result, int) else ExitCode.OK)


if __name__ == "__main__":
    main()
