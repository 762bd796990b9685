"""Ctrl-C in the middle of a mutation run: a real SIGINT to a real ``vtgate mutate`` whose patched
copy's probe is still running. Afterwards no temporary copy is left, the probe process is gone, and
the user's tree (status, HEAD, index bytes, worktree list, files) is exactly as before."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

SLOW = ('def generate(prompt: str = "hi", tokens: int = 12) -> dict:\n',
        'def generate(prompt: str = "hi", tokens: int = 12) -> dict:\n'
        '    import time\n'
        '    with open(os.environ["MUT_LOG"], "a") as log:\n'
        '        log.write(f"{os.getpid()} {os.getcwd()}\\n")\n'
        '    time.sleep(120)\n')

MUTATION = """
[[mutation]]
name = "slow-copy"
kind = "patch"
patch = "goldens/mutations/slow.diff"
expect = { strict-hi = "red" }
"""


def _state(root: Path) -> dict[str, object]:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout

    files = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
             if p.is_file() and ".git" not in p.parts and "__pycache__" not in p.parts}
    return {"status": git("status", "--porcelain", "--ignored"), "head": git("rev-parse", "HEAD"),
            "index": (root / ".git" / "index").read_bytes(), "worktrees": git("worktree", "list", "--porcelain"),
            "branches": git("branch", "--list"), "files": files}


def test_ctrl_c_leaves_no_copy_no_probe_and_an_untouched_tree(blessed, texts, tmp_path) -> None:
    blessed.patch("slow", SLOW)
    blessed.write_suite(texts.gates + MUTATION)
    blessed.commit("slow patch")
    log = tmp_path / "probe.log"
    scratch = tmp_path / "tmpdir"
    scratch.mkdir()
    before = _state(blessed.root)
    env = {**os.environ, "NO_COLOR": "1", "MUT_LOG": str(log), "TMPDIR": str(scratch), "PYTHONDONTWRITEBYTECODE": "1"}
    vtgate = str(Path(sys.executable).parent / "vtgate")
    process = subprocess.Popen([vtgate, "mutate", "--no-auto", "-j", "4"], cwd=blessed.root, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (log.exists() and log.read_text().strip()):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the patched probe never started"
        time.sleep(0.05)
    pid_text, copy_cwd = log.read_text().splitlines()[0].split(" ", 1)
    probe_pid, copy = int(pid_text), Path(copy_cwd)
    assert copy.is_dir() and copy.is_relative_to(scratch)  # the probe really runs in a temporary copy
    assert psutil.pid_exists(probe_pid)

    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)

    assert process.returncode == 130, stderr
    assert "interrupted: vtgate mutate (probe runs stopped, temporary copies removed" in " ".join(stderr.split())
    assert not copy.exists()
    assert list(scratch.iterdir()) == []
    gone = not psutil.pid_exists(probe_pid) or psutil.Process(probe_pid).status() == psutil.STATUS_ZOMBIE
    assert gone, "the patched copy's probe outlived the interrupted run"
    assert _state(blessed.root) == before
