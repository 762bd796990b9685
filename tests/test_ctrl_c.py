"""Ctrl-C is uniform: every CLI ends an interrupted run with one line naming what was interrupted and
exit 130, whatever typer makes of the KeyboardInterrupt (its versions have turned it into ``Abort``,
exit 1, or ``Exit(130)``). vtgate check, mutate and vtbisect run have their own real-SIGINT tests next
to their cleanup checks (tests/check/test_bad_probes.py, tests/mutate/test_interrupt.py,
tests/bisect/test_isolation_and_bad_input.py); here: vtengine, vtgate bless, and run_app itself."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
import typer

BIN = Path(sys.executable).parent


def _wait_for(condition, what: str, process: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"{what} never happened"
        time.sleep(0.05)


def test_vtengine_generate_interrupted_exits_130_naming_the_command(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    process = subprocess.Popen([str(BIN / "vtengine"), "generate", "--prompt", "hi", "--tokens", "1000"],
                               env={**os.environ, "NO_COLOR": "1", "VT_CACHE_DIR": str(cache)},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The model's cache file is written when the model is loaded, just before generation starts.
    _wait_for(lambda: cache.is_dir() and any(cache.glob("*.npz")), "loading the model", process)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert stderr.strip().splitlines()[-1] == "interrupted: vtengine generate"
    assert "Traceback" not in stderr


def test_vtgate_bless_interrupted_exits_130_and_kills_the_probe(tmp_path: Path) -> None:
    pidfile = tmp_path / "sleeper.pid"
    (tmp_path / "vtgate.toml").write_text(
        '[[gate]]\nname = "hang"\nkind = "golden"\n'
        f'probe = {{ cmd = ["sh", "-c", "sleep 60 & echo $! > {pidfile}; wait"] }}\n')
    process = subprocess.Popen([str(BIN / "vtgate"), "bless", "hang", "--reason", "r"], cwd=tmp_path,
                               env={**os.environ, "NO_COLOR": "1"},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for(lambda: pidfile.exists() and pidfile.read_text().strip(), "the probe starting", process)
    sleeper = int(pidfile.read_text())
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted: vtgate bless" in stderr
    assert not (tmp_path / "goldens").exists() or not any((tmp_path / "goldens").rglob("*.json"))
    assert not psutil.pid_exists(sleeper) or psutil.Process(sleeper).status() == psutil.STATUS_ZOMBIE


# --- run_app, in process: each way typer may hand back a Ctrl-C ends the same way ---------------------


def _app(body) -> typer.Typer:  # noqa: ANN001
    app = typer.Typer(add_completion=False, rich_markup_mode=None)

    @app.callback()
    def _root() -> None:
        """demo"""

    @app.command()
    def work() -> int:
        return body()

    return app


def _exit_of(app: typer.Typer, capsys) -> tuple[int, str]:  # noqa: ANN001
    from vtgate.cli.exits import run_app

    with pytest.raises(SystemExit) as stop:
        run_app(app, ["work"], program="demo")
    return stop.value.code, capsys.readouterr().err


def _abort() -> int:
    raise typer.Abort  # what some typer versions make of a KeyboardInterrupt


def _keyboard_interrupt() -> int:
    raise KeyboardInterrupt


def _real_sigint_swallowed() -> int:
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)  # the signal arrives long before this ends
    except KeyboardInterrupt:
        return 0  # a command that swallows it: the run still ends as interrupted
    raise AssertionError("SIGINT did not interrupt")


@pytest.mark.parametrize("body", [_abort, _keyboard_interrupt, _real_sigint_swallowed])
def test_run_app_ends_any_interrupt_with_130_and_the_command(body, capsys) -> None:  # noqa: ANN001
    code, err = _exit_of(_app(body), capsys)
    assert code == 130
    assert err.strip() == "interrupted: demo work"


def test_run_app_reports_what_an_interrupted_command_says_it_did(capsys) -> None:
    from vtgate.cli.exits import Interrupted

    def cleaned_up() -> int:
        raise Interrupted("3 of 18 runs done; probes stopped")

    code, err = _exit_of(_app(cleaned_up), capsys)
    assert code == 130
    assert err.strip() == "interrupted: demo work (3 of 18 runs done; probes stopped)"


def test_run_app_restores_the_previous_sigint_handler(capsys) -> None:
    before = signal.getsignal(signal.SIGINT)
    _exit_of(_app(lambda: 0), capsys)
    assert signal.getsignal(signal.SIGINT) is before


# --- SIGTERM (a CI job's timeout): 143, and a second signal exits at once --------------------------

SECOND_SIGNAL = """
import os, signal, sys, time
import typer
from vtgate.cli.exits import run_app

app = typer.Typer()

@app.command()
def work() -> None:
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(30)
    finally:  # a cleanup that would take long: the second signal ends the process at once
        print("cleaning up", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIG{second})
        time.sleep(30)
        print("cleanup finished", file=sys.stderr, flush=True)

@app.command()
def other() -> None:
    pass

run_app(app, ["work"], program="demo")
"""


@pytest.mark.parametrize("second", ["TERM", "INT"])
def test_a_second_signal_during_cleanup_exits_at_once_with_the_first_signals_code(second: str) -> None:
    done = subprocess.run([sys.executable, "-c", SECOND_SIGNAL.format(second=second)], capture_output=True,
                          text=True, timeout=25, env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 143, done.stderr
    assert "cleaning up" in done.stderr and "cleanup finished" not in done.stderr


TERM_ONCE = """
import os, signal, sys, threading, time
import typer
from vtgate.cli.exits import run_app

app = typer.Typer()

@app.command()
def work() -> None:
    threading.Thread(target=time.sleep, args=(600,)).start()  # a non-daemon thread that would hold the exit
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(30)

@app.command()
def other() -> None:
    pass

sys.argv = ["demo", "work"]
run_app(app, program="demo")
"""


def test_sigterm_exits_143_naming_the_command_even_with_a_thread_that_never_ends() -> None:
    done = subprocess.run([sys.executable, "-c", TERM_ONCE], capture_output=True, text=True, timeout=25,
                          env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 143, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "interrupted: demo work"
