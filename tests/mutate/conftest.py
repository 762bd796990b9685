"""Fixtures for vtgate mutate tests: a throw-away git repository holding the tiny ``mutfake`` engine
(real files, real subprocess probes, real git), a suite writer, and a runner of the installed
``vtgate`` console script."""

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

FAKE = Path(__file__).parent / "fake" / "mutfake"
VTGATE = str(Path(sys.executable).parent / "vtgate")

HEADER = """\
[suite]
pythonpath = ["src"]
source_tree = "src/mutfake"
timeout = 30
"""

GATES = """\
[[gate]]
name = "strict-hi"
kind = "golden"
mode = "strict"
probe = "mutfake:generate"
args = { prompt = "hi", tokens = 12 }

[[gate]]
name = "anchor-hi"
kind = "anchor"
probe = "mutfake:generate"
args = { prompt = "hi", tokens = 12 }
positions = [3, 8]

[[gate]]
name = "dispatch-vs-scalar"
kind = "bitident"
probe = "mutfake:cases"
configs = { dispatch = { args = { impl = "dispatch" } }, scalar = { args = { impl = "scalar" } } }

[[gate]]
name = "draft-band"
kind = "band"
probe = "mutfake:speculative"
bands = { "counters.accepted" = [5, 10] }

[[gate]]
name = "budget-counters"
kind = "counters"
probe = "mutfake:generate"
over = { MUT_BUDGET = ["0", "1"] }

[[gate]]
name = "threads-invariance"
kind = "invariance"
probe = "mutfake:generate"
invariant_over = { MUT_THREADS = ["1", "2"] }
"""

MUTATIONS = """\
[[mutation]]
name = "fma-default-on"
kind = "env"
env = { MUT_FMA = "1" }
expect = { strict-hi = "red", anchor-hi = "red", dispatch-vs-scalar = "red", draft-band = "green" }

[[mutation]]
name = "band-plus-one"
kind = "pin"
pin = { gate = "draft-band", op = "shift-band", metric = "counters.accepted", by = 1 }
expect = { draft-band = "green" }

[[mutation]]
name = "engine-arms"
kind = "arms"
probe = "mutfake:arms"
"""

GOLDEN_GATES = ("strict-hi", "anchor-hi", "budget-counters")


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout


@dataclass
class Project:
    root: Path

    @property
    def suite_path(self) -> Path:
        return self.root / "vtgate.toml"

    def write_suite(self, body: str, header: str = HEADER) -> Path:
        self.suite_path.write_text(header + "\n" + textwrap.dedent(body), encoding="utf-8")
        return self.suite_path

    def vtgate(self, *args: str, env: dict[str, str] | None = None, timeout: float = 300
               ) -> subprocess.CompletedProcess[str]:
        full_env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "250", **(env or {})}
        return subprocess.run([VTGATE, *args], cwd=self.root, capture_output=True, text=True, env=full_env,
                              timeout=timeout)

    def mutate_json(self, *args: str, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], dict]:
        done = self.vtgate("mutate", "--json", "-", "-q", *args, env=env)
        assert done.stdout.strip(), done.stderr
        return done, json.loads(done.stdout)

    def bless(self, *names: str) -> None:
        done = self.vtgate("bless", *names, "--reason", "first measurement")
        assert done.returncode == 0, done.stderr

    def commit(self, message: str = "suite") -> None:
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "-m", message)

    def patch(self, name: str, edit: tuple[str, str]) -> Path:
        """Write goldens/mutations/NAME.diff with git diff on a scratch copy of src/ (never editing
        the project itself): ``edit`` replaces old text by new text in mutfake/__init__.py."""
        scratch = self.root.parent / f"scratch-{name}"
        shutil.copytree(self.root / "src", scratch / "src")
        git(scratch, "init", "-q")
        git(scratch, "add", "-A")
        source = scratch / "src" / "mutfake" / "__init__.py"
        text = source.read_text()
        assert edit[0] in text
        source.write_text(text.replace(edit[0], edit[1]))
        diff = git(scratch, "diff")
        shutil.rmtree(scratch)
        path = self.root / "goldens" / "mutations" / f"{name}.diff"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(diff)
        return path


def make_project(tmp_path: Path) -> Project:
    root = tmp_path / "proj"
    shutil.copytree(FAKE, root / "src" / "mutfake", ignore=shutil.ignore_patterns("__pycache__"))
    (root / ".gitignore").write_text("__pycache__/\n")
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    return Project(root)


def bless_engine_like(project: Project) -> Project:
    project.write_suite(GATES + "\n" + MUTATIONS)
    project.bless(*GOLDEN_GATES)
    project.commit()
    return project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return make_project(tmp_path)


@pytest.fixture
def blessed(project: Project) -> Project:
    """The engine-like suite with its declared mutations, goldens blessed and committed."""
    return bless_engine_like(project)


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], dict]:
    """One full ``vtgate mutate --json -`` of the engine-like suite, shared by read-only tests."""
    project = bless_engine_like(make_project(tmp_path_factory.mktemp("matrix")))
    return project.mutate_json()


@dataclass(frozen=True)
class Texts:
    header: str
    gates: str
    mutations: str
    golden_gates: tuple[str, ...]


@pytest.fixture
def texts() -> Texts:
    """The suite pieces, for tests that build variants of the engine-like suite."""
    return Texts(HEADER, GATES, MUTATIONS, GOLDEN_GATES)
