"""The three console scripts, run as real subprocesses (the typer/click behaviour they rely on is
tested here, not assumed: it changed under the declared floors once): --help, --version, a command
runs its own body, usage errors exit 2, one exit-code enum."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import vtengine.exitcodes
import vtgate.exitcodes

CLIS = ("vtgate", "vtbisect", "vtengine")
REPO = Path(__file__).resolve().parents[1]


def _cli(name: str) -> list[str]:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    assert found, f"console script {name} is not installed next to {sys.executable}"
    return [found]


@pytest.mark.parametrize("name", CLIS)
def test_help_lists_usage_and_exits_zero(name: str) -> None:
    done = subprocess.run([*_cli(name), "--help"], capture_output=True, text=True)
    assert done.returncode == 0
    assert "Usage" in done.stdout


@pytest.mark.parametrize("name", CLIS)
def test_version_prints_the_distribution_version(name: str) -> None:
    from importlib.metadata import version

    done = subprocess.run([*_cli(name), "--version"], capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stdout.strip() == f"{name} {version('vtgate')}"


@pytest.mark.parametrize("name", CLIS)
def test_unknown_option_is_a_usage_error_with_exit_2(name: str) -> None:
    done = subprocess.run([*_cli(name), "--no-such-option"], capture_output=True, text=True)
    assert done.returncode == 2
    assert "no-such-option" in done.stderr


@pytest.mark.parametrize("name", CLIS)
def test_help_of_a_subcommand_exits_zero(name: str) -> None:
    sub = {"vtgate": "check", "vtbisect": "run", "vtengine": "generate"}[name]
    done = subprocess.run([*_cli(name), sub, "--help"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Usage" in done.stdout and sub in done.stdout


@pytest.mark.parametrize("argv,shown", [
    (["vtgate", "list"], "strict-hello"),
    (["vtengine", "arms"], "VT_CPU_GEMV_BF16_DOT"),
])
def test_a_command_runs_its_own_body_not_the_version_option(argv: list[str], shown: str) -> None:
    # with typer 0.12 and today's click the eager --version callback fired on every command
    done = subprocess.run([*_cli(argv[0]), *argv[1:]], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    assert shown in done.stdout + done.stderr
    assert f"{argv[0]} 0" not in done.stdout


@pytest.mark.parametrize("argv,message", [
    (["vtbisect", "run"], "Missing argument 'GOOD..BAD'"),
    (["vtbisect", "run", "--gate", "x"], "Missing argument 'GOOD..BAD'"),  # typer 0.16-0.17.4 ran the body
    (["vtengine", "generate", "--prompt", "x", "--tokens", "many"], "--tokens"),
    (["vtgate", "check", "--jobs", "0"], "--jobs"),
])
def test_a_missing_or_malformed_argument_is_a_usage_error_with_exit_2(argv: list[str], message: str) -> None:
    done = subprocess.run([*_cli(argv[0]), *argv[1:]], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_a_configuration_error_inside_a_command_exits_2_with_the_name() -> None:
    done = subprocess.run([*_cli("vtgate"), "check", "--gate", "no-such-gate"], cwd=REPO, capture_output=True,
                          text=True)
    assert done.returncode == 2, done.stderr
    assert "no-such-gate" in done.stderr


def test_engine_exit_codes_mirror_the_shared_enum() -> None:
    shared = {code.name: code.value for code in vtgate.exitcodes.ExitCode}
    mirror = {code.name: code.value for code in vtengine.exitcodes.ExitCode}
    assert mirror == shared
    assert shared == {"OK": 0, "RED": 1, "USAGE": 2, "INTERNAL": 3, "NOTHING": 5}
