"""Fixtures shared by every test folder: ``terminal`` runs a real command with its stderr on a
pseudo-terminal (python's ``pty``), as a user's shell would, and returns what it drew there (live
progress only appears on a terminal)."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

# A test run started in the background ('pytest &', nohup, a CI runner's job shell) inherits SIGINT
# ignored, and every command a test starts would inherit that too: the Ctrl-C tests would then time
# out on commands that rightly keep an ignored SIGINT ignored. The tests send SIGINT on purpose, so
# their children start with it at its default (a Python handler here is reset to SIG_DFL at exec).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def run_on_terminal(argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], timeout: float = 300
                    ) -> tuple[int, str]:
    """(exit code, the text written to the terminal). stdout goes to a file, so nothing blocks."""
    master, slave = pty.openpty()
    with open(os.devnull, "rb") as stdin, (cwd / ".stdout.txt").open("wb") as stdout:
        process = subprocess.Popen(list(argv), cwd=cwd, env=dict(env), stdin=stdin, stdout=stdout, stderr=slave)
    os.close(slave)
    chunks: list[bytes] = []
    try:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every writer closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
    return process.wait(timeout=timeout), b"".join(chunks).decode("utf-8", "replace")


def terminal_env(**extra: str) -> dict[str, str]:
    """The caller's environment as an interactive terminal has it: no CI marker, a real TERM."""
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update({"TERM": "xterm-256color", "COLUMNS": "160", "NO_COLOR": "1"}, **extra)
    return env


class Terminal:
    run = staticmethod(run_on_terminal)
    env = staticmethod(terminal_env)


@pytest.fixture
def terminal() -> Terminal:
    return Terminal()
