"""docs/own-engine.md, "From zero: a transformers model", run as written: the files it shows are
written from the page, its commands (vtengine export, vtgate init, bless, check) are run from the
page, and the suite init writes is green, then red with a knob that changes the logits set.
Needs torch and transformers in the interpreter running the tests: skipped with the reason elsewhere
(.ci/run runs this module in a separate environment that has them)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a dozen torch processes: .ci/run runs it where torch is installed
pytest.importorskip("torch", reason="torch is not installed: the transformers path of docs/own-engine.md cannot run")
pytest.importorskip("transformers", reason="transformers is not installed: the transformers path cannot run")

PAGE = Path(__file__).resolve().parents[2] / "docs" / "own-engine.md"
BIN = Path(sys.executable).parent


def _section() -> str:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index("## From zero: a transformers model")
    return text[start:text.index("\n## ", start + 1)]


def _files() -> dict[str, str]:
    """The ```python blocks whose first line is a ``# path`` comment: path -> text."""
    files = {}
    for block in re.findall(r"```python\n(.*?)```", _section(), re.S):
        first, _, rest = block.partition("\n")
        if re.fullmatch(r"# [\w/]+\.py", first):
            files[first[2:]] = rest
    return files


def _commands(program: str) -> list[list[str]]:
    """The page's ``$ PROGRAM ...`` lines, split as a shell would, PROGRAM from this environment."""
    lines = re.findall(rf"^\$ ({program} .*)$", _section(), re.M)
    return [[str(BIN / program), *shlex.split(line)[1:]] for line in lines]


def _run(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SVC_")}
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=900,
                          env={**clean, "NO_COLOR": "1", "COLUMNS": "250", **(env or {})})


def test_the_transformers_walk_through_is_green_then_red_under_bfloat16(tmp_path: Path) -> None:
    files = _files()
    assert set(files) == {"svc/service.py", "svc/probe.py", "svc/__init__.py"}
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    (export,) = _commands("vtengine")
    assert _run(export, tmp_path).returncode == 0
    init, bless, check = _commands("vtgate")
    done = _run(init, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "left out (the engine failed at these values): SVC_THREADS=0" in done.stdout + done.stderr
    suite = (tmp_path / "vtgate.toml").read_text()
    assert 'invariant_over = { SVC_THREADS = ["1", "2"] }' in suite
    assert 'env = { SVC_USE_CACHE = "0" }' in suite  # measured to change the logits: a mutation
    done = _run(bless, tmp_path)
    assert done.returncode == 0, done.stderr
    done = _run([*check, "--json", "-"], tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {g["name"]: g["status"] for g in report["gates"]} == dict.fromkeys(
        ["generate-strict", "teacher-forced", "generate-logits", "generate-logits-close",
         "invariant-over-SVC_THREADS", "envdoc"], "green")
    done = _run([*check, "--json", "-", "-k", "generate-logits"], tmp_path, env={"SVC_DTYPE": "bfloat16"})
    assert done.returncode == 1, done.stderr
    red = {g["name"] for g in json.loads(done.stdout)["gates"] if g["status"] == "red"}
    assert {"generate-logits", "generate-logits-close"} <= red
