"""Run a typer app so that every way out maps to a documented exit code (docs/contracts.md#exit-codes): usage errors 2, unexpected
exceptions 3 (with the traceback on stderr), Ctrl-C 130 with one line saying what was interrupted. Shared by the vtgate and vtbisect CLIs.

Ctrl-C is handled here, not left to typer (which has turned KeyboardInterrupt into ``Abort``, exit 1,
or into ``Exit(130)``, depending on its version): a SIGINT handler notes that the user interrupted,
then raises KeyboardInterrupt as Python's own handler does, so every command's cleanup still runs.
Whatever typer makes of it afterwards, the run ends with ``interrupted: vtgate check`` and exit 130.
A command that has more to say (what it stopped, what it left) raises ``Interrupted(detail)``."""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType

import typer

from vtgate.exitcodes import ExitCode
from vtgate.output import console, problem, say

INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a process stopped by Ctrl-C


class Interrupted(Exception):
    """Raised by a command that caught Ctrl-C (KeyboardInterrupt) and cleaned up; ``detail`` says what
    was stopped and what was left, e.g. ``"worktrees removed; re-run to resume from the cache"``."""

    def __init__(self, detail: str = "") -> None:
        super().__init__(detail)
        self.detail = detail


def is_usage_error(error: BaseException) -> bool:
    """Click-style usage errors (bad option, missing argument) know how to show themselves."""
    return hasattr(error, "show") and hasattr(error, "exit_code") and not isinstance(error, typer.Exit)


def command_label(program: str, argv: Sequence[str]) -> str:
    """``vtgate check`` for ``vtgate check --gate x``: the program and its command (the first word
    that is not an option; the root callbacks take no option with a value)."""
    command = next((word for word in argv if not word.startswith("-")), None)
    return f"{program} {command}" if command else program


@dataclass
class SigintNote:
    """Whether a SIGINT arrived while the app ran."""

    seen: bool = False


@contextmanager
def noting_sigint() -> Iterator[SigintNote]:
    """Note every SIGINT, then raise KeyboardInterrupt like Python's default handler. A SIGINT that is
    ignored (``nohup``, a background job) stays ignored; off the main thread nothing is installed."""
    note = SigintNote()

    def on_sigint(signum: int, frame: FrameType | None) -> None:
        note.seen = True
        raise KeyboardInterrupt

    try:
        previous = signal.getsignal(signal.SIGINT)
        if previous is signal.SIG_IGN:
            yield note
            return
        signal.signal(signal.SIGINT, on_sigint)
    except ValueError:  # not the main thread
        yield note
        return
    try:
        yield note
    finally:
        signal.signal(signal.SIGINT, previous)


def interrupted(label: str, detail: str = "") -> None:
    """The one line a Ctrl-C leaves: what was interrupted, and what the command did about it."""
    say(("interrupted", "bold"), f": {label}" + (f" ({detail})" if detail else ""))


def run_app(app: typer.Typer, argv: list[str] | None = None, *, program: str = "vtgate") -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    label = command_label(program, args)
    with noting_sigint() as sigint:
        try:
            result = app(args=args, standalone_mode=False, prog_name=program)
        except Interrupted as stop:
            interrupted(label, stop.detail)
            sys.exit(INTERRUPTED)
        except typer.Exit as stop:
            if sigint.seen or stop.exit_code == INTERRUPTED or isinstance(stop.__cause__, KeyboardInterrupt):
                interrupted(label)
                sys.exit(INTERRUPTED)
            sys.exit(stop.exit_code)
        except (typer.Abort, KeyboardInterrupt):
            interrupted(label)
            sys.exit(INTERRUPTED)
        except Exception as error:  # noqa: BLE001 - the last line of defence: say it, exit 2 or 3
            if sigint.seen:
                interrupted(label)
                sys.exit(INTERRUPTED)
            if is_usage_error(error):
                error.show()  # type: ignore[attr-defined]
                sys.exit(ExitCode.USAGE)
            console.print_exception(show_locals=False)
            problem("internal error", f"this is a bug in {program}; the traceback is above")
            sys.exit(ExitCode.INTERNAL)
        # A swallowed KeyboardInterrupt, or one typer turned into Exit(130) and, outside standalone
        # mode, into a return value: Ctrl-C still ends the run as 130, saying so.
        if sigint.seen or result == INTERRUPTED:
            interrupted(label)
            sys.exit(INTERRUPTED)
    sys.exit(int(result) if isinstance(result, int) else ExitCode.OK)
