"""Run a typer app so that every way out maps to a documented exit code (docs/contracts.md#exit-codes): usage errors 2, unexpected
exceptions 3 (with the traceback on stderr), Ctrl-C 130 and SIGTERM 143 with one line saying what was interrupted. Shared by the
vtgate and vtbisect CLIs.

Ctrl-C and SIGTERM (a CI job's timeout, ``kill``) are handled here, not left to typer (which has turned
KeyboardInterrupt into ``Abort``, exit 1, or into ``Exit(130)``, depending on its version): a handler
notes which signal arrived, then raises KeyboardInterrupt as Python's own SIGINT handler does, so every
command's cleanup still runs. Whatever typer makes of it afterwards, the run ends with
``interrupted: vtgate check`` and exit 128 + the signal (130, 143). A command that has more to say
(what it stopped, what it left) raises ``Interrupted(detail)``. A second signal while cleaning up
ends the process at once (its children's trees killed). And the process really ends: once the run is
decided, a daemon watchdog gives the interpreter ``EXIT_GRACE_SECONDS`` to finish, then kills what
is left of the children and exits with the decided code, so no thread, pool or client keeps it alive."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import NoReturn

import typer

from vtgate.exitcodes import ExitCode
from vtgate.output import console, problem, say

INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a process stopped by Ctrl-C
TERMINATED = 143  # 128 + SIGTERM: a CI job's timeout, ``kill``
HANDLED = (signal.SIGINT, signal.SIGTERM)
EXIT_GRACE_SECONDS = 5.0  # once the exit code is decided, the longest the interpreter may take to end


class Interrupted(Exception):
    """Raised by a command that caught Ctrl-C (KeyboardInterrupt) and cleaned up; ``detail`` says what
    was stopped and what was left, e.g. ``"worktrees removed; re-run to resume from the cache"``."""

    def __init__(self, detail: str = "") -> None:
        super().__init__(detail)
        self.detail = detail


class InterruptedExit(SystemExit):
    """The exit of a run a signal ended (exit code 130 or 143)."""


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
    """Which ending signal (SIGINT, SIGTERM) arrived first while the app ran, if any."""

    signum: int | None = None

    @property
    def seen(self) -> bool:
        return self.signum is not None

    @property
    def exit_code(self) -> int:
        return 128 + self.signum if self.signum is not None else INTERRUPTED


def kill_descendants() -> None:
    """Kill every process this one started, with their trees (the last resort on the way out)."""
    import psutil

    from vtgate.run.proctree import kill_tree

    with contextlib.suppress(psutil.Error):
        for child in psutil.Process().children():
            kill_tree(child.pid)


def exit_now(code: int) -> None:
    """End the process with ``code`` at once: children killed, output flushed, no thread waited for."""
    with contextlib.suppress(Exception):
        kill_descendants()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


@contextmanager
def noting_sigint() -> Iterator[SigintNote]:
    """Note the first SIGINT or SIGTERM, then raise KeyboardInterrupt like Python's default SIGINT
    handler; a second one exits at once (``exit_now``). A signal that is ignored (``nohup``, a
    background job) stays ignored; off the main thread nothing is installed."""
    note = SigintNote()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        if note.signum is not None:
            exit_now(note.exit_code)
        note.signum = signum
        raise KeyboardInterrupt

    try:
        previous = {sig: signal.getsignal(sig) for sig in HANDLED}
        for sig in HANDLED:
            if previous[sig] is not signal.SIG_IGN:
                signal.signal(sig, on_signal)
    except ValueError:  # not the main thread
        yield note
        return
    try:
        yield note
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def end_interrupted(code: int) -> None:
    """End a program run a signal interrupted with ``code`` itself: atexit callbacks run (the probes'
    scratch folder is removed by one), then :func:`exit_now`. Left to the interpreter, the run could end
    killed by SIGINT instead: CPython marks a KeyboardInterrupt that passed through code run by ``exec``
    (a dataclass built during a lazy import) as unhandled even though it was caught, and its
    ``Py_RunMain`` then re-sends SIGINT to the process after the exit code is decided."""
    import atexit

    with contextlib.suppress(Exception):
        atexit._run_exitfuncs()
    exit_now(code)


def arm_exit_watchdog(code: int, grace: float = EXIT_GRACE_SECONDS) -> None:
    """A daemon thread that ends the process with ``code`` if it still runs ``grace`` seconds from
    now (a non-daemon thread, a pool or a client's loop holding the interpreter's shutdown)."""

    def watch() -> None:
        time.sleep(grace)
        exit_now(code)

    threading.Thread(target=watch, name="vtgate-exit-watchdog", daemon=True).start()


def interrupted(label: str, detail: str = "") -> None:
    """The one line a Ctrl-C leaves: what was interrupted, and what the command did about it."""
    say(("interrupted", "bold"), f": {label}" + (f" ({detail})" if detail else ""))


def leave_interrupted(label: str, code: int, detail: str = "") -> NoReturn:
    """Say what was interrupted, then leave with ``code`` (130, 143) as a run a signal ended."""
    interrupted(label, detail)
    raise InterruptedExit(code)


def run_app(app: typer.Typer, argv: list[str] | None = None, *, program: str = "vtgate") -> None:
    """Run ``app`` and exit with its documented code. Called as the program (``argv`` None), the exit
    is guarded by ``arm_exit_watchdog``; called in-process (tests), it only raises SystemExit."""
    args = list(sys.argv[1:] if argv is None else argv)
    label = command_label(program, args)
    try:
        _run(app, args, label, program)
    except SystemExit as leaving:
        if argv is None:
            code = leaving.code if isinstance(leaving.code, int) else (0 if leaving.code is None else 1)
            arm_exit_watchdog(code)
            if isinstance(leaving, InterruptedExit):
                end_interrupted(code)
        raise


def _run(app: typer.Typer, args: list[str], label: str, program: str) -> None:
    from vtgate.cli.startup import NOTED

    with noting_sigint() as sigint:
        try:
            if NOTED:  # a signal while the program was importing the app (vtgate.cli.startup)
                sigint.signum = NOTED[0]
                leave_interrupted(label, sigint.exit_code)
            result = app(args=args, standalone_mode=False, prog_name=program)
        except Interrupted as stop:
            leave_interrupted(label, sigint.exit_code, stop.detail)
        except typer.Exit as stop:
            if sigint.seen or stop.exit_code == INTERRUPTED or isinstance(stop.__cause__, KeyboardInterrupt):
                leave_interrupted(label, sigint.exit_code)
            sys.exit(stop.exit_code)
        except (typer.Abort, KeyboardInterrupt):
            leave_interrupted(label, sigint.exit_code)
        except Exception as error:  # noqa: BLE001 - the last line of defence: say it, exit 2 or 3
            if sigint.seen:
                leave_interrupted(label, sigint.exit_code)
            if is_usage_error(error):
                error.show()  # type: ignore[attr-defined]
                sys.exit(ExitCode.USAGE)
            console.print_exception(show_locals=False)
            problem("internal error", f"this is a bug in {program}; the traceback is above")
            sys.exit(ExitCode.INTERNAL)
        # A swallowed KeyboardInterrupt, or one typer turned into Exit(130) and, outside standalone
        # mode, into a return value: Ctrl-C still ends the run as 130, saying so.
        if sigint.seen or result == INTERRUPTED:
            leave_interrupted(label, sigint.exit_code)
    sys.exit(int(result) if isinstance(result, int) else ExitCode.OK)
