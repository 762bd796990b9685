"""Live progress of vtgate check and bless: drawn on a terminal (runs done / total, then erased),
never in a pipe, a CI log (CI=true) or when stdout carries ``--json -``. Real subprocesses; the
terminal is a real pseudo-terminal."""

from __future__ import annotations

import pytest

from .conftest import VTGATE

GATES = (
    '[[gate]]\nname = "strict"\nkind = "golden"\nprobe = "fakeengine:generate"\nargs = { prompt = "hello", tokens = 12 }\n'
    '\n[[gate]]\nname = "inv"\nkind = "invariance"\nprobe = "fakeengine:generate"\n'
    'args = { prompt = "hello", tokens = 12 }\ninvariant_over = { FAKE_BUDGET = ["0", "1"] }\n'
)


def test_check_draws_runs_done_of_total_on_a_terminal(project, terminal) -> None:
    project.write_suite(GATES)
    project.bless("strict")
    code, drawn = terminal.run([VTGATE, "check"], cwd=project.root, env=terminal.env())
    assert code == 0, drawn
    assert "probe runs done" in drawn
    assert "3/3" in drawn  # strict's run is inv's baseline: 3 distinct runs


def test_check_draws_no_progress_into_a_pipe(project) -> None:
    project.write_suite(GATES)
    project.bless("strict")
    done = project.vtgate("check")
    assert done.returncode == 0, done.stderr
    assert "probe runs done" not in done.stderr
    assert "ok: 2 gates" in done.stderr


@pytest.mark.parametrize("how", ["CI=true", "--json -"])
def test_check_draws_no_progress_in_ci_or_for_json_on_stdout(project, terminal, how) -> None:
    project.write_suite(GATES)
    project.bless("strict")
    argv = [VTGATE, "check", *(["--json", "-"] if how == "--json -" else [])]
    env = terminal.env(**({"CI": "true"} if how == "CI=true" else {}))
    code, drawn = terminal.run(argv, cwd=project.root, env=env)
    assert code == 0, drawn
    assert "probe runs done" not in drawn
    assert "ok: 2 gates" in drawn  # the report itself is still there


def test_bless_draws_progress_on_a_terminal(project, terminal) -> None:
    project.write_suite(GATES)
    code, drawn = terminal.run([VTGATE, "bless", "strict", "--reason", "first"], cwd=project.root, env=terminal.env())
    assert code == 0, drawn
    assert "probe runs done" in drawn and "1/1" in drawn
