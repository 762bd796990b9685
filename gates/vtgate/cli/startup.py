"""The first lines of the ``vtgate`` and ``vtbisect`` programs (their console scripts and ``python -m``).

SIGINT and SIGTERM are noted from here on, before the CLI's imports (typer, rich, NumPy, the commands:
most of a second): a signal in that window is not raised into the middle of an import, where it would
end the run as a traceback, be swallowed by a library's bare ``except`` (the run then goes on), or leave
the process killed by SIGINT. :func:`vtgate.cli.exits.run_app` acts on a noted signal as soon as the app
is imported, as on a later one (``interrupted: vtgate check``, exit 130 or 143). A second signal in that
window exits at once. A signal the parent ignored (``nohup``, a shell's background job) stays ignored.
Only the standard library is imported here."""

from __future__ import annotations

import os
import signal
from types import FrameType

NOTED: list[int] = []  # the signals that arrived before the app was imported


def note_signals(program: str) -> None:
    """Note SIGINT and SIGTERM in :data:`NOTED` until the app's own handlers take over."""

    def note(signum: int, frame: FrameType | None) -> None:
        if NOTED:
            os.write(2, f"interrupted: {program}\n".encode())
            os._exit(128 + NOTED[0])
        NOTED.append(signum)

    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, note)
