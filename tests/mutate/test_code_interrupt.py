"""Ctrl-C or SIGTERM in the middle of ``vtgate mutate --code``: a real SIGINT (SIGTERM) while a mutated
copy's probe runs in a child of that copy's fork server, and while the baseline and the coverage runs
run. Afterwards no copy is left, neither the probe nor its server lives on, and the user's tree is
exactly as before (exit 130, 143 for SIGTERM)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from .test_interrupt import _state

SIGNALS = pytest.mark.parametrize(("sig", "expected"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)],
                                  ids=["SIGINT", "SIGTERM"])

# In a mutated copy only (never in the baseline or the coverage runs, which run in the project), the
# probe logs its pid, its parent's (the fork server) and its folder, then hangs.
HANG_IN_COPY = '''

_generate = generate


def generate(prompt: str = "hi", tokens: int = 12) -> dict:
    if "vtgate-mutate-" in os.getcwd():
        import time
        with open(os.environ["MUT_LOG"], "a") as log:
            log.write(f"{os.getpid()} {os.getppid()} {os.getcwd()}\\n")
        time.sleep(120)
    return _generate(prompt, tokens)
'''


def _gone(pid: int) -> bool:
    return not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


@SIGNALS
def test_ctrl_c_during_code_mutants_leaves_no_copy_no_server_no_probe(blessed, tmp_path, sig, expected) -> None:
    source = blessed.root / "src" / "mutfake" / "__init__.py"
    source.write_text(source.read_text() + HANG_IN_COPY)
    blessed.commit("a probe that hangs in mutated copies")
    log = tmp_path / "probe.log"
    scratch = tmp_path / "tmpdir"
    scratch.mkdir()
    before = _state(blessed.root)
    env = {**os.environ, "NO_COLOR": "1", "MUT_LOG": str(log), "TMPDIR": str(scratch), "PYTHONDONTWRITEBYTECODE": "1"}
    vtgate = str(Path(sys.executable).parent / "vtgate")
    process = subprocess.Popen([vtgate, "mutate", "--code", "--no-cache", "-j", "2"], cwd=blessed.root, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (log.exists() and log.read_text().strip()):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no mutated copy's probe ever started"
        time.sleep(0.05)
    probe_text, server_text, copy_cwd = log.read_text().splitlines()[0].split(" ", 2)
    probe, server, copy = int(probe_text), int(server_text), Path(copy_cwd)
    assert copy.is_dir() and copy.is_relative_to(scratch)  # the probe really runs in a temporary copy
    assert psutil.Process(server).cmdline()[1:3] == ["-m", "vtgate.run.forkserver"]  # forked by the copy's server

    process.send_signal(sig)
    _, stderr = process.communicate(timeout=60)

    assert process.returncode == expected, stderr
    assert "interrupted: vtgate mutate" in stderr and "Traceback" not in stderr
    assert not copy.exists()
    assert list(scratch.iterdir()) == []
    assert _gone(probe), "the mutated copy's probe outlived the interrupted run"
    assert _gone(server), "the copy's fork server outlived the interrupted run"
    assert _state(blessed.root) == before


# In the project itself (the baseline's runs, answered by fork servers, and the coverage runs, at the
# same time), the probe logs its pid, then hangs.
HANG_IN_PROJECT = '''

_generate_first = generate


def generate(prompt: str = "hi", tokens: int = 12) -> dict:
    if "vtgate-mutate-" not in os.getcwd():
        import time
        with open(os.environ["MUT_LOG"], "a") as log:
            log.write(f"{os.getpid()}\\n")
        time.sleep(120)
    return _generate_first(prompt, tokens)
'''


def _cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:  # a run that just finished
        return []


@SIGNALS
def test_ctrl_c_during_the_baseline_and_coverage_leaves_no_probe_and_no_zygote(blessed, tmp_path, sig,
                                                                              expected) -> None:
    source = blessed.root / "src" / "mutfake" / "__init__.py"
    source.write_text(source.read_text() + HANG_IN_PROJECT)
    blessed.commit("a probe that hangs in the project")
    log = tmp_path / "probe.log"
    scratch = tmp_path / "tmpdir"
    scratch.mkdir()
    before = _state(blessed.root)
    env = {**os.environ, "NO_COLOR": "1", "MUT_LOG": str(log), "TMPDIR": str(scratch), "PYTHONDONTWRITEBYTECODE": "1"}
    vtgate = str(Path(sys.executable).parent / "vtgate")
    process = subprocess.Popen([vtgate, "mutate", "--code", "--no-cache", "-j", "2"], cwd=blessed.root, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (log.exists() and len(log.read_text().split()) >= 2):  # runs of the baseline and of coverage
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the baseline's and coverage's probes never both started"
        time.sleep(0.05)
    while True:  # a process listed while it starts may not show its command line yet: look again
        descendants = psutil.Process(process.pid).children(recursive=True)
        commands = [" ".join(_cmdline(p)) for p in descendants]
        if any("coverage" in c for c in commands) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    # coverage runs alongside the baseline. Whether the baseline's servers came from a zygote or from
    # the fresh-server fallback is not asserted here (tests/mutate/test_forkserver.py covers the
    # zygote); under pytest-xdist this run took the fallback. Either way nothing may outlive Ctrl-C.
    assert any("coverage" in c for c in commands)

    process.send_signal(sig)
    _, stderr = process.communicate(timeout=60)

    assert process.returncode == expected, stderr
    assert "interrupted: vtgate mutate" in stderr and "Traceback" not in stderr
    for pid in [int(text) for text in log.read_text().split()]:
        assert _gone(pid), "a probe of the baseline or of coverage outlived the interrupted run"
    assert all(_gone(p.pid) for p in descendants), "a zygote, server or coverage run outlived the run"
    assert list(scratch.iterdir()) == []
    assert _state(blessed.root) == before
