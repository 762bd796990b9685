"""Fixtures for vtgate check tests: a throwaway project holding the fake engine (real files, real
subprocess probes) and a helper that runs the installed ``vtgate`` console script."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

FAKE = Path(__file__).parent / "fake" / "fakeengine"
VTGATE = str(Path(sys.executable).parent / "vtgate")

HEADER = """\
[suite]
pythonpath = ["src"]
source_tree = "src/fakeengine"
timeout = 30
"""


@dataclass
class Project:
    root: Path

    def write_suite(self, gates: str, header: str = HEADER) -> Path:
        path = self.root / "vtgate.toml"
        path.write_text(header + "\n" + textwrap.dedent(gates), encoding="utf-8")
        return path

    def vtgate(self, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        import os

        full_env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "250", **(env or {})}
        return subprocess.run([VTGATE, *args], cwd=cwd or self.root, capture_output=True, text=True,
                              env=full_env, timeout=120)

    def check_json(self, *args: str, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], dict]:
        done = self.vtgate("check", "--json", "-", *args, env=env)
        return done, json.loads(done.stdout)

    def bless(self, *names: str, reason: str = "first measurement") -> subprocess.CompletedProcess[str]:
        done = self.vtgate("bless", *names, "--reason", reason)
        assert done.returncode == 0, done.stderr
        return done

    def suite(self):  # -> Suite
        from vtgate.suite.load import load_suite

        return load_suite(self.root / "vtgate.toml")

    def golden(self, name: str, tier: str = "default") -> dict:
        return json.loads((self.root / "goldens" / tier / f"{name}.json").read_text())


@pytest.fixture
def project(tmp_path: Path) -> Project:
    shutil.copytree(FAKE, tmp_path / "src" / "fakeengine", ignore=shutil.ignore_patterns("__pycache__"))
    return Project(tmp_path)
