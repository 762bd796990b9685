"""Fixtures for the own-engine tests: a throwaway project holding a tiny command-line engine
(tests/own/engine/tinyengine.py, run as a real subprocess) and the installed ``vtgate`` script."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ENGINE = Path(__file__).parent / "engine" / "tinyengine.py"
VTGATE = str(Path(sys.executable).parent / "vtgate")

HEADER = """\
[suite]
source_tree = "engine"
knob_prefixes = ["TINY_"]
timeout = 60

[envdoc]
prefix = "TINY_"
"""


@dataclass
class Project:
    root: Path

    def write_suite(self, body: str, header: str = HEADER) -> Path:
        path = self.root / "vtgate.toml"
        path.write_text(header + "\n" + textwrap.dedent(body), encoding="utf-8")
        return path

    def vtgate(self, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        clean = {k: v for k, v in os.environ.items() if not k.startswith("TINY_")}
        full_env = {**clean, "NO_COLOR": "1", "COLUMNS": "250", **(env or {})}
        return subprocess.run([VTGATE, *args], cwd=cwd or self.root, capture_output=True, text=True,
                              env=full_env, timeout=300)

    def check_json(self, *args: str, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], dict]:
        done = self.vtgate("check", "--json", "-", *args, env=env)
        assert done.stdout, done.stderr
        return done, json.loads(done.stdout)

    def bless(self, *names: str, reason: str = "first measurement") -> subprocess.CompletedProcess[str]:
        done = self.vtgate("bless", *names, "--reason", reason)
        assert done.returncode == 0, done.stderr
        return done

    def golden(self, name: str, tier: str = "default") -> dict:
        return json.loads((self.root / "goldens" / tier / f"{name}.json").read_text())


@pytest.fixture
def project(tmp_path: Path) -> Project:
    (tmp_path / "engine").mkdir()
    shutil.copy(ENGINE, tmp_path / "engine" / "tinyengine.py")
    return Project(tmp_path)
