"""``python -m vtengine`` and the ``vtengine`` program (its console script is :func:`run`).

SIGINT and SIGTERM are noted from here on, before the CLI's imports (typer, rich, then NumPy: a third
of a second): a signal in that window is not raised into the middle of an import, where it would end
the run as a traceback, be swallowed by a library's bare ``except`` (the run then goes on), or leave
the process killed by SIGINT; :func:`vtengine.cli.main` acts on it once it is imported, as on a later
one (``interrupted: vtengine <command>``, exit 130 or 143). A second signal in that window exits at
once. A signal the parent ignored (``nohup``, a shell's background job) stays ignored. Only the
standard library is imported before the handlers are in place."""

from __future__ import annotations

import os
import signal
from types import FrameType

NOTED: list[int] = []  # the signals that arrived before the CLI was imported


def _note(signum: int, frame: FrameType | None) -> None:
    if NOTED:
        os.write(2, b"interrupted: vtengine\n")
        os._exit(128 + NOTED[0])
    NOTED.append(signum)


def run() -> None:
    for sig in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, _note)
    from vtengine.cli import main

    main(noted=NOTED)


if __name__ == "__main__":
    run()
