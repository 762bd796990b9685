"""A signal at any moment of a run ends it as 130 (SIGINT) or 143 (SIGTERM) with the command's
``interrupted:`` line, for the three programs (``vtengine``, ``vtgate``, ``vtbisect``), including two
moments an earlier version got wrong (a CI run of the engine's own signal case saw exit -2):

- **during the program's own imports** (typer, rich, NumPy: a third of a second or more). Python's
  default handler raised KeyboardInterrupt into the middle of an import: a traceback and a process
  killed by SIGINT, or a run that went on when a library's bare ``except`` swallowed it. The programs
  now note signals from their first line (vtengine.__main__, vtgate.cli.startup) and act on them once
  the CLI is imported; a second one there exits at once.
- **inside code run by ``exec``** (a dataclass built during a lazy import). CPython marks a
  KeyboardInterrupt that passed through such code as unhandled even when it was caught, and re-sends
  SIGINT to the process after the exit code is decided: the run printed ``interrupted:`` and died by
  SIGINT (-2). Interrupted program runs now end with their code themselves.

The moments are made exact by test instrumentation, not by timing: a ``sitecustomize`` on the command's
PYTHONPATH adds an audit hook that, at the first audit event of a given name whose arguments match a
pattern (its first argument: the module imported, the file opened), sends the signal to its own process (``count`` times), directly or from code run by ``exec``,
then sleeps (so the run can only end through the signal). The hook pops its setting from the
environment, so no child of the command is instrumented."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[1]
HANG = 60.0  # still running this long after the signal is a hang (a bound, not a speed claim)

HOOK = '''\
"""Test instrumentation (tests/test_signal_start.py): signal this process at one audit event."""
import json, os, re, sys

_spec = os.environ.pop("SIGNAL_AT_EVENT", None)  # popped: no child of this process is instrumented
if _spec:
    _at = json.loads(_spec)
    _pattern = re.compile(_at["match"])
    _done = []

    def _hook(event, args):
        if _done or event != _at["event"] or not args or not _pattern.search(str(args[0])):
            return
        _done.append(event)
        code = "import os, time\\n" + f"os.kill(os.getpid(), {_at['signal']})\\n" * _at["count"] \\
            + f"time.sleep({_at['sleep']})\\n"
        if _at["exec"]:
            exec(code)
        else:
            import time
            for _ in range(_at["count"]):
                os.kill(os.getpid(), _at["signal"])
            time.sleep(_at["sleep"])

    sys.addaudithook(_hook)
'''


@pytest.fixture()
def hook_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "hook"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(HOOK)
    return folder


def _default_signals() -> None:
    # the command starts with SIGINT's default action whatever this test process was started with
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def run_signalled(argv: list[str], hook_dir: Path, *, event: str, match: str, sig: int = signal.SIGINT,
                  count: int = 1, via_exec: bool = False, sleep: float = 0.0) -> subprocess.CompletedProcess[str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("VT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(hook_dir), str(REPO)])
    env["SIGNAL_AT_EVENT"] = json.dumps({"event": event, "match": match, "signal": int(sig), "count": count,
                                         "exec": via_exec, "sleep": sleep})
    env["CI"] = "true"
    return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=REPO, timeout=HANG,
                          preexec_fn=_default_signals)


def _interrupted(done: subprocess.CompletedProcess[str], code: int, label: str) -> None:
    assert (done.returncode, done.stderr.strip().splitlines()[-1:]) == (code, [f"interrupted: {label}"]), done.stderr
    assert "Traceback" not in done.stderr


PROGRAMS = {
    "vtengine": ([str(BIN / "vtengine"), "bench", "--tokens", "3", "--runs", "1"], "vtengine bench"),
    "python -m vtengine": ([sys.executable, "-m", "vtengine", "bench", "--tokens", "3", "--runs", "1"], "vtengine bench"),
    "vtgate": ([str(BIN / "vtgate"), "list"], "vtgate list"),
    "python -m vtgate": ([sys.executable, "-m", "vtgate", "list"], "vtgate list"),
    "vtbisect": ([str(BIN / "vtbisect"), "run", "--help"], "vtbisect run"),
}


@pytest.mark.parametrize("program", sorted(PROGRAMS))
@pytest.mark.parametrize(("signame", "code"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_during_the_programs_imports_ends_the_run_with_its_code(hook_dir: Path, program: str, signame: str,
                                                                          code: int) -> None:
    argv, label = PROGRAMS[program]
    done = run_signalled(argv, hook_dir, event="import", match=r"^typer$", sig=getattr(signal, signame))
    _interrupted(done, code, label)


@pytest.mark.parametrize("program", ["vtengine", "vtgate"])
def test_a_second_signal_during_the_imports_exits_at_once_with_the_first_ones_code(hook_dir: Path, program: str) -> None:
    argv, _ = PROGRAMS[program]
    done = run_signalled(argv, hook_dir, event="import", match=r"^typer$", count=2, sleep=2 * HANG)
    assert (done.returncode, done.stderr.strip()) == (130, f"interrupted: {program}")


@pytest.mark.parametrize(("program", "event", "match"), [
    ("vtengine", "import", r"^vtengine\.engine$"),  # bench imports the engine lazily, after the CLI's handlers
    ("python -m vtengine", "import", r"^vtengine\.engine$"),
    ("vtgate", "open", r"gates\.toml"),
])
def test_a_keyboardinterrupt_through_code_run_by_exec_still_ends_the_run_with_130(hook_dir: Path, program: str,
                                                                                  event: str, match: str) -> None:
    argv, label = PROGRAMS[program]
    done = run_signalled(argv, hook_dir, event=event, match=match, via_exec=True, sleep=2 * HANG)
    _interrupted(done, 130, label)


def test_the_instrumentation_signals_at_the_event_it_names(hook_dir: Path) -> None:
    # the hook fires at the named event only: an event the command never reaches leaves it to finish (0)
    argv, _ = PROGRAMS["vtgate"]
    done = run_signalled(argv, hook_dir, event="import", match=r"^no_such_module_anywhere$")
    assert done.returncode == 0, done.stderr
    done = run_signalled(argv, hook_dir, event="open", match=r"gates\.toml", sleep=2 * HANG)
    _interrupted(done, 130, "vtgate list")
