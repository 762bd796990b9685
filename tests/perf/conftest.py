"""Fixtures of the perf tests: a throwaway git project holding a fake engine whose per-step cost is a
constant of its source (``SLOW``) or an env knob (``FAKE_SLOW``), timed in CPU seconds, with exact
outputs (tokens, a digest, a counter) that a knob can make wrong; and helpers that run the real
vtgate CLI on it in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from jsonschema import Draft202012Validator

CHECK_SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "schemas" / "check.schema.json"

FAKE_ENGINE = '''
"""A fake engine for perf tests: every step does SLOW * FAKE_SLOW units of pure-Python work."""
import hashlib
import os
import time
from pathlib import Path

SLOW = {slow}


def timed(steps: int = 12, unit: int = 15000) -> dict:
    mark = os.environ.get("FAKE_MARK_DIR")
    started_ns = time.time_ns()
    pads = os.environ.get("FAKE_PAD_DIR")
    if pads:  # the random stack padding the leg runner gave this process
        Path(pads, str(os.getpid())).write_text(str(len(os.environ.get("VTGATE_PERF_PAD", "-"))))
    if mark:
        Path(mark, f"{{os.getpid()}}-{{started_ns}}").write_text("leg")
        pause = float(os.environ.get("FAKE_PAUSE", "0"))
        if pause:
            time.sleep(pause)
    factor = SLOW * float(os.environ.get("FAKE_SLOW", "1"))
    shift = 1 if os.environ.get("FAKE_WRONG") == "1" else 0
    tokens, cpu = [], []
    for step in range(steps):
        started = time.process_time()
        total = 0
        for i in range(int(unit * factor)):
            total += i * i % 7
        cpu.append(time.process_time() - started)
        tokens.append((step * 31 + 7 + shift) % 97)
    median = sorted(cpu)[len(cpu) // 2]
    if mark:  # the call's span, for the test that no two legs ever overlap
        Path(mark, f"{{os.getpid()}}-{{started_ns}}").write_text(f"{{started_ns}} {{time.time_ns()}}")
    observation = {{
        "tokens": tokens,
        "digests": {{"stream": hashlib.sha256(bytes(tokens)).hexdigest()}},
        "counters": {{"steps": steps}},
        "stages": {{"decode": {{"work": median, "other": 0.001}}}},
    }}
    if os.environ.get("FAKE_NO_TIMING") != "1":
        observation["timing"] = {{"cpu_tok_s": 1.0 / max(median, 1e-9)}}
    return observation
'''

SUITE_HEAD = '''
[suite]
pythonpath = ["src"]
goldens = "goldens"
timeout = 300
'''

PERF_GATE = '''
[[gate]]
name = "{name}"
kind = "perf"
probe = "fakeeng:timed"
metric = "timing.cpu_tok_s"
min_ratio = {min_ratio}
rounds = {rounds}
warmup = 0
reference = {reference}
quiet = {quiet}
{extra}
'''


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


@dataclass
class Project:
    root: Path

    @property
    def suite(self) -> Path:
        return self.root / "gates.toml"

    def set_slow(self, factor: float) -> None:
        (self.root / "src" / "fakeeng.py").write_text(FAKE_ENGINE.format(slow=factor))

    def commit(self, message: str) -> str:
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "-m", message)
        return git(self.root, "rev-parse", "HEAD")

    def vtgate(self, *args: str, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        full = {**os.environ, **(env or {})}
        full.pop("PYTHONPATH", None)
        return subprocess.run([sys.executable, "-m", "vtgate", *args], cwd=self.root, env=full,
                              capture_output=True, text=True, timeout=timeout, check=False)

    def check_json(self, *args: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any], str]:
        """``vtgate check --json -``: exit code, the report (validated against its schema), stderr."""
        done = self.vtgate("check", "--suite", str(self.suite), "--json", "-", *args, env=env)
        report = json.loads(done.stdout)
        Draft202012Validator(json.loads(CHECK_SCHEMA.read_text())).validate(report)
        return done.returncode, report, done.stderr


def perf_gate(name: str = "fake-perf", *, min_ratio: float = 0.8, rounds: int = 3,
              reference: str = '{ env = { FAKE_SLOW = "1" } }', quiet: str = "false", extra: str = "") -> str:
    return PERF_GATE.format(name=name, min_ratio=min_ratio, rounds=rounds, reference=reference, quiet=quiet,
                            extra=extra)


def make_project(tmp_path: Path, gates: str, *, slow: float = 1.0) -> Project:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    project = Project(root)
    project.set_slow(slow)
    project.suite.write_text(SUITE_HEAD + gates)
    (root / ".gitignore").write_text(".vtgate-cache/\n__pycache__/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "perf@test")
    git(root, "config", "user.name", "perf test")
    project.commit("fake engine")
    return project


def bless(project: Project, gate: str = "fake-perf") -> None:
    done = project.vtgate("bless", gate, "--suite", str(project.suite), "--reason", "pin the exact outputs",
                          env={"VTGATE_PERF_PREFLIGHT": "record"})
    assert done.returncode == 0, done.stderr
    project.commit("bless")


@pytest.fixture
def tmp_project(tmp_path: Path):
    def build(gates: str, *, slow: float = 1.0, blessed: tuple[str, ...] = ("fake-perf",)) -> Project:
        project = make_project(tmp_path, gates, slow=slow)
        for name in blessed:
            bless(project, name)
        return project

    return build


@pytest.fixture
def perfkit() -> SimpleNamespace:
    """The helpers a test module needs by name: ``gate(...)`` (a perf gate's TOML), ``git(root, ...)``,
    ``bless(project, gate)`` and ``project(root)``."""
    return SimpleNamespace(gate=perf_gate, git=git, bless=bless, project=Project)
