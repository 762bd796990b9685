"""Your checkout leaking into the judge: a real virtualenv with a real editable install (pip install -e)
of a package in the bisected repository, a PYTHONPATH into it. Without vtbisect's fix every
candidate would import your checkout's code (here: bad), and GOOD would judge bad."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "tinypkg"
version = "0.1"

[tool.setuptools.packages.find]
where = ["src"]
"""

JUDGE = "import sys\nimport tinypkg\nsys.exit(1 if tinypkg.VALUE == 'bad' else 0)\n"


def tiny_history(make_history, layout: str = "src"):
    """``src``: src/tinypkg (setuptools' editable install is a .pth line); ``flat``: tinypkg at the top
    (an import finder mapping the package to your checkout)."""
    repo = make_history()
    package = "src/tinypkg" if layout == "src" else "tinypkg"
    project = PYPROJECT if layout == "src" else PYPROJECT.replace('where = ["src"]', 'include = ["tinypkg"]')
    repo.commit({"pyproject.toml": project, f"{package}/__init__.py": "VALUE = 'ok'\n"}, "tiny package")
    repo.filler(4)
    repo.commit({f"{package}/__init__.py": "VALUE = 'bad'\n"}, "tinypkg: break VALUE")
    repo.filler(3)
    return repo


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A fresh virtualenv that installs without network: it sees the system's packages and, through a
    .pth line, this test environment's pip and setuptools (the test extra's, which build editable
    wheels; the system's may not)."""
    folder = tmp_path_factory.mktemp("venv") / "env"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--system-site-packages", "--without-pip", str(folder)], check=True, capture_output=True)
    site = subprocess.run([str(folder / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    (Path(site) / "test-environment.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return folder


@pytest.mark.parametrize("layout", ["src", "flat"])
def test_an_editable_install_into_your_checkout_is_pointed_at_the_candidate(make_history, kit, vtbisect, venv,
                                                                             tmp_path, layout):
    repo = tiny_history(make_history, layout)
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
                           "--no-build-isolation", "-e", str(repo.path)], capture_output=True, text=True)
    if done.returncode != 0 and "No module named" in done.stderr:
        pytest.skip(f"no setuptools for the virtualenv to build with: {done.stderr[-200:]}")
    assert done.returncode == 0, done.stderr
    python = venv / "bin" / "python"
    # The leak is real: from a neutral folder, this Python imports tinypkg from your checkout.
    origin = subprocess.run([str(python), "-c", "import tinypkg; print(tinypkg.__file__)"], cwd=tmp_path,
                            capture_output=True, text=True, check=True).stdout.strip()
    root = repo.path / "src" if layout == "src" else repo.path
    assert origin == str(root / "tinypkg" / "__init__.py")

    script = tmp_path / "judge.py"
    script.write_text(JUDGE)
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", str(python), str(script))
    assert ran.code == 1, ran.stderr
    assert ran.culprits[0]["subject"] == "tinypkg: break VALUE"
    worktree_root = "<worktree>/src" if layout == "src" else "<worktree>"
    note = ("note: the judge would see your checkout, not the candidate: "
            f"{python} imports tinypkg from {root} (editable install of tinypkg); so each candidate "
            f"runs with PYTHONPATH={worktree_root} first")
    assert note in ran.stderr, ran.stderr
    assert ran.record["recipe"]["judge"]["pythonpath_roots"] == (["src"] if layout == "src" else [""])


def test_a_pythonpath_into_your_checkout_is_pointed_at_the_candidate(make_history, kit, vtbisect, tmp_path):
    repo = tiny_history(make_history)
    script = tmp_path / "judge.py"
    script.write_text(JUDGE)
    env = {"PYTHONPATH": str(repo.path / "src")}
    ran = vtbisect(repo.path, f"{repo.shas[0]}..HEAD", "--", sys.executable, str(script), env=env)
    assert ran.code == 1, ran.stderr
    assert ran.culprits[0]["subject"] == "tinypkg: break VALUE"
    assert f"PYTHONPATH entry {repo.path / 'src'}" in ran.stderr
    assert "those PATH/PYTHONPATH entries point at the worktree instead" in ran.stderr


def test_a_path_folder_of_your_checkout_is_pointed_at_the_candidate(make_history, kit, vtbisect, tmp_path):
    repo = make_history()
    tool = "#!/bin/sh\ngrep -q bad a.txt && exit 1\nexit 0\n"
    repo.commit({"a.txt": "ok\n", "bin/check-a": tool}, "base with a tool")
    (repo.path / "bin" / "check-a").chmod(0o755)
    kit.git(repo.path, "add", "bin/check-a")
    repo.commit({}, "tool executable")
    repo.filler(3)
    repo.commit({"a.txt": "bad\n"}, "break a")
    # HEAD's tool says everything is good: judged from your checkout, BAD would judge good.
    repo.commit({"bin/check-a": "#!/bin/sh\nexit 0\n"}, "tool: always pass")
    env = {"PATH": f"{repo.path / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    ran = vtbisect(repo.path, f"{repo.shas[1]}..HEAD~1", "--", "check-a", env=env)
    assert ran.code == 1, ran.stderr
    assert ran.culprits[0]["subject"] == "break a"
    assert f"PATH entry {repo.path / 'bin'}" in ran.stderr


GATE_SUITE = """\
[suite]
pythonpath = ["src"]
timeout = 30

[[gate]]
name = "alpha"
kind = "counters"
counters = ["alpha"]
probe = "toyeng.probes:measure"
"""

# The probe imports `helper` from lib/, a folder the suite does not put on the path: the user runs with
# PYTHONPATH=<checkout>/lib, which would make every candidate's probe import the checkout's helper.
GATE_PROBES = "import helper\n\n\ndef measure() -> dict:\n    return {'counters': {'alpha': helper.VALUE}}\n"


@pytest.mark.slow  # a gate-mode bisection: vtgate check runs per candidate
def test_gate_mode_points_a_pythonpath_into_your_checkout_at_the_candidate(make_history, kit, vtbisect, tmp_path,
                                                                            monkeypatch):
    monkeypatch.setenv("VT_BISECT_CACHE_DIR", str(tmp_path / "cache"))
    repo = make_history()
    lib = repo.path / "lib"
    leak = {"PYTHONPATH": str(lib)}
    repo.commit({"vtgate.toml": GATE_SUITE, "src/toyeng/__init__.py": "", "src/toyeng/probes.py": GATE_PROBES,
                 "lib/helper.py": "VALUE = 1\n"}, "toy engine with a helper library")
    vtgate = str(Path(sys.executable).parent / "vtgate")
    blessed = subprocess.run([vtgate, "bless", "alpha", "--reason", "first"], cwd=repo.path, capture_output=True,
                             text=True, env={**os.environ, **leak, "NO_COLOR": "1"})
    assert blessed.returncode == 0, blessed.stderr
    good = repo.commit({}, "bless the goldens")
    repo.filler(3)
    culprit = repo.commit({"lib/helper.py": "VALUE = 2\n"}, "helper: change VALUE")
    repo.filler(2)
    # The leak is real: from your checkout (at BAD), the probe's helper says 2 at every candidate.
    ran = vtbisect(repo.path, f"{good}..HEAD", "--gate", "alpha", env=leak)
    assert ran.code == 1, ran.stderr
    assert [c["commit"] for c in ran.culprits] == [culprit]
    assert (f"note: the judge would see your checkout, not the candidate: PYTHONPATH entry {lib}; so those "
            "PATH/PYTHONPATH entries point at the worktree instead (the candidate's code is what is judged)") in ran.stderr
