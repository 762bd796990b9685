"""The quiet-host preflight: what it calls noisy under a policy, how it waits for a quiet window, that
the CPU of the gate's own process tree never counts while a busy process outside it does (named), and
that a competing process is found by its exact executable name only, never by a command line.

The real-process tests run beside whatever else the machine runs (other pytest-xdist workers, other
users): they assert on which processes a reading counts and names, and judge a verdict only on the
processes the test started (the reading filtered to them), never on the whole host's load."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from vtgate.perf.hostcheck import (
    CpuSampler,
    HostState,
    OtherProcess,
    QuietPolicy,
    noise,
    policy_problems,
    preflight,
    read_host_state,
)
from vtgate.perf.legs import peer_runners

BUSY = "while True: pass"


def state(other_cpu: float = 0.1, cores: int = 2, available_mb: float = 4000.0, competing=(), governors=(),
          load1: float = 0.5) -> HostState:
    """A reading in which one other process (pid 4242, ``burner``) used ``other_cpu`` cores."""
    others = (OtherProcess(4242, "burner", other_cpu, "burner --spin"),) if other_cpu else ()
    return HostState(0.0, cores, load1, available_mb, tuple(competing), tuple(governors), others, 0.25, 3)


def test_a_quiet_host_has_no_noise():
    assert noise(state(), QuietPolicy()) == []


def test_each_noisy_measure_is_named_with_its_limit():
    policy = QuietPolicy(max_other_cpu_per_core=0.25, min_available_mb=1000, competing=("cc1plus",), governor="performance")
    found = noise(state(other_cpu=1.0, available_mb=200, competing=[("cc1plus", 2)], governors=["powersave"]), policy)
    assert found == [
        "processes outside the gate used 0.50 CPU/core on 2 cores over 0.25 s > 0.25 "
        "(busiest: pid 4242 burner (burner --spin) 100% of a core)",
        "available memory 200 MB < 1000 MB",
        "competing process cc1plus running (2)",
        "CPU frequency governor powersave, not performance",
    ]


def test_the_load_average_is_recorded_but_never_judged():
    assert noise(state(other_cpu=0.0, load1=40.0), QuietPolicy()) == []
    assert state(load1=3.0).to_json()["load_per_core"] == 1.5


def test_a_named_process_keeps_its_whole_name_and_a_shortened_command_line():
    long_name = "a-very-long-executable-name-of-forty-chars"
    text = OtherProcess(7, long_name, 0.97, f"/opt/bin/{long_name} " + "x" * 300).describe()
    assert text.startswith(f"pid 7 {long_name} (/opt/bin/")
    assert "..." in text and "x" * 100 not in text and text.endswith("97% of a core")


def test_thresholds_set_to_none_are_not_checked_and_unreadable_governors_are_not_noise():
    policy = QuietPolicy(max_other_cpu_per_core=None, min_available_mb=None, governor="performance")
    assert noise(state(other_cpu=2.0, available_mb=1.0, governors=()), policy) == []


def test_the_old_load_key_is_read_as_the_other_cpu_share_and_both_at_once_is_a_problem():
    assert QuietPolicy.from_options({"max_load_per_core": 0.4}).max_other_cpu_per_core == 0.4
    assert QuietPolicy.from_options({}).max_other_cpu_per_core == 0.25
    assert QuietPolicy.from_options({"max_other_cpu_per_core": 0.1}).max_other_cpu_per_core == 0.1
    assert policy_problems({"max_load_per_core": 1.0}) == []
    both = policy_problems({"max_load_per_core": 1.0, "max_other_cpu_per_core": 0.2})
    assert any("max_other_cpu_per_core only" in problem for problem in both)


def test_preflight_waits_for_a_quiet_reading_within_its_budget():
    readings = iter([state(other_cpu=1.8), state(other_cpu=1.8), state(other_cpu=0.02)])
    now = [0.0]
    result = preflight(QuietPolicy(), 10.0, poll_seconds=1.0, read=lambda: next(readings),
                       sleep=lambda s: now.__setitem__(0, now[0] + s), clock=lambda: now[0])
    assert result.noisy == () and result.waited == 2.0


def test_preflight_gives_up_when_the_budget_is_spent_and_says_what_was_noisy():
    now = [0.0]
    result = preflight(QuietPolicy(), 3.0, poll_seconds=1.0, read=lambda: state(other_cpu=1.8),
                       sleep=lambda s: now.__setitem__(0, now[0] + s), clock=lambda: now[0])
    (found,) = result.noisy
    assert found.startswith("processes outside the gate used 0.90 CPU/core on 2 cores") and "pid 4242 burner" in found
    assert result.waited == 3.0


def test_a_policy_that_does_not_enforce_records_the_state_and_finds_nothing_noisy():
    result = preflight(QuietPolicy(enforce=False), read=lambda: state(other_cpu=2.0))
    assert result.noisy == () and result.state.other_cpu_per_core == 1.0


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
    ({"max_other_cpu_per_core": -1}, "non-negative number"),
    ({"loadavg": 1}, "unknown key 'loadavg'"),
    ("yes", "must be a table"),
])
def test_bad_quiet_tables_are_named(raw, fragment):
    assert any(fragment in problem for problem in policy_problems(raw))


def only(reading: HostState, pids: set[int]) -> HostState:
    """The reading with only the processes the test started counted (the rest of the host is not the
    test's to judge)."""
    return dataclasses.replace(reading, others=tuple(p for p in reading.others if p.pid in pids))


def wait_until_busy(pid: int) -> None:
    """Until ``pid`` has used some CPU (bounded): a reading before that would measure its start-up."""
    deadline = time.monotonic() + 60
    process = psutil.Process(pid)
    while time.monotonic() < deadline:
        times = process.cpu_times()
        if times.user + times.system >= 0.05:
            return
        time.sleep(0.05)
    raise AssertionError(f"process {pid} used no CPU in 60 s")


@pytest.fixture
def children():
    started: list[subprocess.Popen] = []
    yield started
    for process in started:  # with their descendants, which may have sessions of their own
        with contextlib.suppress(psutil.Error):
            for descendant in psutil.Process(process.pid).children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    descendant.kill()
        process.kill()
        process.wait(timeout=30)


def test_the_gates_own_busy_descendants_never_count_and_outside_its_tree_they_would(children):
    # as the leg runner starts its warm processes: children in sessions of their own, one with a busy child
    children.append(subprocess.Popen([sys.executable, "-c", BUSY], start_new_session=True))
    children.append(subprocess.Popen([sys.executable, "-c", f"import subprocess, sys; subprocess.Popen("
                                      f"[sys.executable, '-c', {BUSY!r}], start_new_session=True).wait()"],
                                     start_new_session=True))
    deadline = time.monotonic() + 60
    while not psutil.Process(children[1].pid).children() and time.monotonic() < deadline:
        time.sleep(0.05)
    (grandchild,) = psutil.Process(children[1].pid).children()
    busy = {children[0].pid, grandchild.pid}
    for pid in busy:
        wait_until_busy(pid)
    children.append(subprocess.Popen(["sleep", "120"], start_new_session=True))

    reading = CpuSampler(window=0.5).read()
    counted = {process.pid for process in reading.others}
    assert not busy & counted  # the gate's own legs: never "other processes"
    assert reading.own >= 4  # this process, its two children and the grandchild
    assert noise(only(reading, busy), QuietPolicy(max_other_cpu_per_core=0.02)) == []

    # planted: the same readings with another tree as the gate's (a sleeping process) count them
    elsewhere = CpuSampler(root=children[2].pid, window=0.5).read()
    assert busy <= {process.pid for process in elsewhere.others}
    (found,) = noise(only(elsewhere, busy), QuietPolicy(max_other_cpu_per_core=0.02))
    assert all(f"pid {pid} " in found for pid in busy)


def test_a_busy_process_outside_the_gates_tree_is_noisy_and_named_with_the_fix_left_to_the_caller(tmp_path: Path, orphans):
    burner = tmp_path / "vtburner"
    burner.symlink_to(sys.executable)
    pid = detached(str(burner), "-c", BUSY, "--marker-" + "x" * 200)
    orphans.append(pid)
    assert psutil.Process(pid).ppid() != os.getpid()  # not a descendant of this process
    wait_until_busy(pid)
    reading = read_host_state(window=0.5)
    assert pid in {process.pid for process in reading.others}
    (found,) = noise(only(reading, {pid}), QuietPolicy(max_other_cpu_per_core=0.02))
    assert found.startswith("processes outside the gate used ")
    assert f"pid {pid} vtburner ({str(burner)[:20]}" in found  # its name whole, then its command line, cut
    assert "x" * 60 not in found and "...) " in found and "% of a core" in found


def test_waiting_for_a_quiet_host_returns_once_the_busy_process_has_ended(orphans):
    pid = detached(sys.executable, "-c", "import time\nend = time.time() + 3\nwhile time.time() < end: pass")
    orphans.append(pid)
    wait_until_busy(pid)
    sampler = CpuSampler()
    readings: list[HostState] = []

    def read() -> HostState:
        readings.append(only(sampler.read(), {pid}))
        return readings[-1]

    result = preflight(QuietPolicy(max_other_cpu_per_core=0.02), 120.0, poll_seconds=0.5, read=read)
    assert result.noisy == ()
    assert any(reading.others for reading in readings)  # it was noisy, and waited
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_the_trees_of_other_perf_leg_runners_are_peers_not_noise(orphans):
    """Two perf gates of one check run side by side: one runner's warm processes starting up while the
    other times must not make it refuse (their legs never time at once: the host-wide leg lock)."""
    runner = detached(sys.executable, "-c", "import time\nfrom vtgate.perf.legs import register_runner\n"
                      f"register_runner()\nimport subprocess, sys\nsubprocess.Popen([sys.executable, '-c', {BUSY!r}])\n"
                      "time.sleep(120)")
    orphans.append(runner)
    deadline = time.monotonic() + 60
    while not (runner in peer_runners() and psutil.Process(runner).children()) and time.monotonic() < deadline:
        time.sleep(0.05)
    (warm,) = psutil.Process(runner).children()
    orphans.append(warm.pid)
    wait_until_busy(warm.pid)
    assert warm.pid in {p.pid for p in CpuSampler(window=0.5).read().others}  # planted: no peers, it counts
    assert warm.pid not in {p.pid for p in CpuSampler(window=0.5, peers=peer_runners).read().others}
    os.kill(warm.pid, signal.SIGKILL)
    os.kill(runner, signal.SIGKILL)  # killed: it never unregisters, and is ignored once gone
    deadline = time.monotonic() + 60
    while psutil.pid_exists(runner) and psutil.Process(runner).status() != psutil.STATUS_ZOMBIE \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    assert runner not in peer_runners() or psutil.Process(runner).status() == psutil.STATUS_ZOMBIE
