"""The quiet-host preflight: what it calls noisy under a policy, how it waits for a quiet window, and
that a competing process is found by its exact executable name only, never by a command line."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from vtgate.perf.hostcheck import HostState, QuietPolicy, noise, policy_problems, preflight, read_host_state


def state(load1: float = 0.5, cores: int = 2, available_mb: float = 4000.0, competing=(), governors=()) -> HostState:
    return HostState(0.0, cores, load1, available_mb, tuple(competing), tuple(governors))


def test_a_quiet_host_has_no_noise():
    assert noise(state(), QuietPolicy()) == []


def test_each_noisy_measure_is_named_with_its_limit():
    policy = QuietPolicy(max_load_per_core=1.0, min_available_mb=1000, competing=("cc1plus",), governor="performance")
    found = noise(state(load1=5.0, available_mb=200, competing=[("cc1plus", 2)], governors=["powersave"]), policy)
    assert found == [
        "load average 5.00 on 2 cores = 2.50/core > 1",
        "available memory 200 MB < 1000 MB",
        "competing process cc1plus running (2)",
        "CPU frequency governor powersave, not performance",
    ]


def test_thresholds_set_to_none_are_not_checked_and_unreadable_governors_are_not_noise():
    policy = QuietPolicy(max_load_per_core=None, min_available_mb=None, governor="performance")
    assert noise(state(load1=50.0, available_mb=1.0, governors=()), policy) == []


def test_preflight_waits_for_a_quiet_reading_within_its_budget():
    readings = iter([state(load1=9.0), state(load1=9.0), state(load1=0.2)])
    now = [0.0]
    result = preflight(QuietPolicy(), 10.0, poll_seconds=1.0, read=lambda: next(readings),
                       sleep=lambda s: now.__setitem__(0, now[0] + s), clock=lambda: now[0])
    assert result.noisy == () and result.waited == 2.0


def test_preflight_gives_up_when_the_budget_is_spent_and_says_what_was_noisy():
    now = [0.0]
    result = preflight(QuietPolicy(), 3.0, poll_seconds=1.0, read=lambda: state(load1=9.0),
                       sleep=lambda s: now.__setitem__(0, now[0] + s), clock=lambda: now[0])
    assert result.noisy == ("load average 9.00 on 2 cores = 4.50/core > 1",)
    assert result.waited == 3.0


def test_a_policy_that_does_not_enforce_records_the_state_and_finds_nothing_noisy():
    result = preflight(QuietPolicy(enforce=False), read=lambda: state(load1=99.0))
    assert result.noisy == () and result.state.load1 == 99.0


def detached(*argv: str) -> int:
    """Start ``argv`` as an orphan (not a descendant of this process, which the preflight never counts
    against itself); returns its pid."""
    done = subprocess.run(["sh", "-c", '"$@" >/dev/null 2>&1 & echo $!', "sh", *argv], capture_output=True,
                          text=True, check=True)
    return int(done.stdout.strip())


@pytest.fixture
def orphans():
    pids: list[int] = []
    yield pids
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def test_a_competing_process_is_found_by_its_exact_executable_name(tmp_path: Path, orphans):
    sleep = shutil.which("sleep")
    assert sleep is not None
    hog = tmp_path / "noisyhog"
    shutil.copy(sleep, hog)
    orphans.append(detached(str(hog), "60"))
    assert dict(read_host_state(["noisyhog"]).competing).get("noisyhog", 0) >= 1
    assert "noisyho" not in dict(read_host_state(["noisyho"]).competing)  # no prefix matching


def test_a_command_line_naming_the_competitor_is_not_a_competitor(orphans):
    pid = detached(sys.executable, "-c", "import time; time.sleep(60)", "noisyhog")
    orphans.append(pid)
    assert "noisyhog" not in dict(read_host_state(["noisyhog"]).competing)
    own_name = psutil.Process(pid).name()
    assert dict(read_host_state([own_name]).competing).get(own_name, 0) >= 1  # found by its own name


@pytest.mark.parametrize(("raw", "fragment"), [
    ({"competing": ["cc1*"]}, "exact executable names"),
    ({"competing": ["/usr/bin/cc1plus"]}, "exact executable names"),
    ({"max_load_per_core": "low"}, "non-negative number"),
    ({"loadavg": 1}, "unknown key 'loadavg'"),
    ("yes", "must be a table"),
])
def test_bad_quiet_tables_are_named(raw, fragment):
    assert any(fragment in problem for problem in policy_problems(raw))
