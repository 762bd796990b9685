"""``vtengine bench`` draws a transient progress bar of its timed runs on a terminal only: never
into a pipe, a CI log (CI=true) or when stdout carries ``--json -``. Real subprocesses; the terminal
is a real pseudo-terminal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

VTENGINE = str(Path(sys.executable).parent / "vtengine")
BENCH = [VTENGINE, "bench", "--runs", "2", "--tokens", "3", "--prompt-tokens", "2"]


def test_bench_draws_its_timed_runs_on_a_terminal(terminal, tmp_path) -> None:
    code, drawn = terminal.run(BENCH, cwd=tmp_path, env=terminal.env())
    assert code == 0, drawn
    assert "timed runs" in drawn and "2/2" in drawn
    assert "decode" in drawn  # the result line is still printed


def test_bench_draws_nothing_extra_into_a_pipe(tmp_path) -> None:
    done = subprocess.run(BENCH, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "timed runs" not in done.stderr
    assert "decode" in done.stderr


@pytest.mark.parametrize("how", ["CI=true", "--json -"])
def test_bench_draws_no_progress_in_ci_or_for_json_on_stdout(terminal, tmp_path, how) -> None:
    argv = BENCH + (["--json", "-"] if how == "--json -" else [])
    env = terminal.env(**({"CI": "true"} if how == "CI=true" else {}))
    code, drawn = terminal.run(argv, cwd=tmp_path, env=env)
    assert code == 0, drawn
    assert "timed runs" not in drawn
