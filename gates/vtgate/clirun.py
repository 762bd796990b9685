"""Run a typer app so that every way out maps to a documented exit code (docs/contracts.md#exit-codes):
usage errors 2, unexpected exceptions 3 (with the traceback on stderr), Ctrl-C 130."""

from __future__ import annotations

import sys

import typer

from vtgate.exitcodes import ExitCode
from vtgate.output import console


def is_usage_error(error: BaseException) -> bool:
    """Click-style usage errors (bad option, missing argument) know how to show themselves."""
    return hasattr(error, "show") and hasattr(error, "exit_code") and not isinstance(error, typer.Exit)


def run_app(app: typer.Typer, argv: list[str] | None = None, *, program: str = "vtgate") -> None:
    try:
        result = app(args=argv, standalone_mode=False, prog_name=program)
    except typer.Exit as stop:
        sys.exit(stop.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        console.print("interrupted")
        sys.exit(130)
    except Exception as error:  # noqa: BLE001 - the last line of defence: say it, exit 2 or 3
        if is_usage_error(error):
            error.show()  # type: ignore[attr-defined]
            sys.exit(ExitCode.USAGE)
        console.print_exception(show_locals=False)
        console.print(f"[bold red]internal error[/]: this is a bug in {program}; the traceback is above")
        sys.exit(ExitCode.INTERNAL)
    sys.exit(int(result) if isinstance(result, int) else ExitCode.OK)
