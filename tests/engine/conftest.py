"""Shared fixtures for the engine tests: one vt-tiny model per session, a short prompt, knobs, and
a family run on a patched copy of vtengine (the fresh-bug sets' tests)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from vtengine import tokenizer
from vtengine.knobs import Knobs
from vtengine.model import Model, load_model


@pytest.fixture(scope="session")
def tiny() -> Model:
    return load_model("vt-tiny")


@pytest.fixture(scope="session")
def prompt_ids() -> list[int]:
    return tokenizer.encode("The paged cache")


@pytest.fixture(scope="session")
def default_knobs() -> Knobs:
    return Knobs()


REPO = Path(__file__).resolve().parents[2]
RUN_FAMILY = """
import json, sys
from vtengine import families, probes
out = families.run(20261202, 24, 16, only=[sys.argv[1]],
                   observe={"generate": probes.generate, "teacher_forced": probes.teacher_forced})
print(json.dumps(list(out["cases"].values())))
"""


@pytest.fixture
def family_failures(tmp_path: Path) -> Callable[[str, str, str | None], list[str]]:
    """``(set, family, bug)``: the failure lines of one family of vtengine.families, run in a fresh
    interpreter on a copy of vtengine with benchmarks/freshbugs/<set>/<bug>.patch applied (none when
    ``bug`` is None: the control), in a cache folder of its own."""
    def run(bug_set: str, family: str, bug: str | None) -> list[str]:
        copy = tmp_path / "copy"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(REPO / "engine" / "vtengine", copy / "engine" / "vtengine",
                        ignore=shutil.ignore_patterns("__pycache__"))
        if bug is not None:
            patch = REPO / "benchmarks" / "freshbugs" / bug_set / f"{bug}.patch"
            subprocess.run(["git", "apply", str(patch)], cwd=copy, check=True, capture_output=True)
        done = subprocess.run([sys.executable, "-c", RUN_FAMILY, family], capture_output=True, text=True,
                              timeout=600, cwd=tmp_path,
                              env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home()),
                                   "PYTHONPATH": str(copy / "engine"), "VT_CACHE_DIR": str(tmp_path / "model-cache")})
        assert done.returncode == 0, done.stderr
        return list(json.loads(done.stdout.strip().splitlines()[-1]))
    return run
