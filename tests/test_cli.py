"""The three console scripts: --help, --version, usage errors exit 2, one exit-code enum."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
import vtengine.exitcodes
import vtgate.exitcodes

CLIS = ("vtgate", "vtbisect", "vtengine")


def _cli(name: str) -> list[str]:
    found = shutil.which(name, path=str(__import__("pathlib").Path(sys.executable).parent))
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


def test_engine_exit_codes_mirror_the_shared_enum() -> None:
    shared = {code.name: code.value for code in vtgate.exitcodes.ExitCode}
    mirror = {code.name: code.value for code in vtengine.exitcodes.ExitCode}
    assert mirror == shared
    assert shared == {"OK": 0, "RED": 1, "USAGE": 2, "INTERNAL": 3, "NOTHING": 5}
