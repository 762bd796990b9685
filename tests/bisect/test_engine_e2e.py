"""End to end on the reference engine itself: a generated copy of the project's history where one
commit flips the FMA-contracted attention arm to the default and a later one flips the bf16 pair-dot
arm (masked by the first, as in the paged-attention field note). ``vtbisect run --all-red
--all-culprits`` must name both, with the evidence written."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

VTGATE = str(Path(sys.executable).parent / "vtgate")
PROJECT = Path(__file__).resolve().parents[2]

SUITE = '''\
[suite]
pythonpath  = ["engine"]
source_tree = "engine/vtengine"
goldens     = "goldens"
timeout     = 120

[[gate]]
name  = "strict-hello"
kind  = "golden"
mode  = "strict"
probe = "vtengine.probes:generate"
args  = { prompt = "hello", tokens = 96 }

[[gate]]
name  = "attention-dispatch-vs-scalar"
kind  = "bitident"
probe = "vtengine.probes:attention_cases"
configs = { dispatch = { args = { impl = "dispatch" } }, scalar = { args = { impl = "scalar" } } }
'''

KNOBS = "engine/vtengine/knobs.py"


def flip_default(text: str, knob: str) -> str:
    old = f'os.environ.get("{knob}", "0")'
    assert text.count(old) == 1, f"{knob}'s default is not where the test expects it in {KNOBS}"
    return text.replace(old, f'os.environ.get("{knob}", "1")')


def copy_engine(target: Path) -> None:
    """The project's committed engine (git archive HEAD), not the working files others are editing."""
    archive = subprocess.run(["git", "-C", str(PROJECT), "archive", "--format=tar", "HEAD", "engine"],
                             capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data") if sys.version_info >= (3, 12) else tar.extractall(target)  # noqa: S202


@pytest.mark.slow
def test_fma_and_masked_bfdot_default_flips_are_both_named_with_evidence(make_history, kit, vtbisect, tmp_path):
    repo = make_history("engine-history")
    copy_engine(repo.path)
    (repo.path / "vtgate.toml").write_text(SUITE)
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("PYTHONPATH", None)
    repo.commit({}, "engine: the bit-exact default arms")
    blessed = subprocess.run([VTGATE, "bless", "strict-hello", "--reason", "default arm"], cwd=repo.path,
                             capture_output=True, text=True, env=env)
    assert blessed.returncode == 0, blessed.stderr
    repo.commit({}, "goldens: strict-hello under the default arm")
    good = repo.shas[-1]
    knobs = (repo.path / KNOBS).read_text()
    repo.filler(1)
    knobs = flip_default(knobs, "VT_CPU_PAGED_ATTN_SCALAR_FMA")
    fma = repo.commit({KNOBS: knobs}, "draft(kolibri1): FMA-contract the paged-attention scalar body by default")
    repo.filler(2)
    knobs = flip_default(knobs, "VT_CPU_PAGED_ATTN_BFDOT")
    bfdot = repo.commit({KNOBS: knobs}, "kolibri1: bf16 pair-dot paged attention on by default")
    repo.filler(1)

    evidence = tmp_path / "evidence"
    ran = vtbisect(repo.path, f"{good}..HEAD", "--all-red", "--all-culprits", "--evidence", str(evidence))
    assert ran.code == 1, ran.stderr
    by_commit = {c["commit"]: c for c in ran.culprits}
    assert set(by_commit) == {fma, bfdot}, ran.stderr
    assert "attention-dispatch-vs-scalar" in by_commit[fma]["gates"]
    assert "attention-dispatch-vs-scalar" in by_commit[bfdot]["gates"]
    assert by_commit[fma]["masked_by"] is None
    assert by_commit[bfdot]["masked_by"] == fma
    assert by_commit[bfdot]["reverts"] == [fma]
    assert all(c["kind"] == "regression" for c in ran.culprits)

    readme = (evidence / "README-bisect.md").read_text()
    assert "FMA-contract the paged-attention scalar body" in readme
    assert "bf16 pair-dot paged attention on by default" in readme
    assert f"masked by `{fma[:10]}`" in readme
    assert "knobs.py" in readme  # the culprits' diffstat
    logs = sorted((evidence / "steps").glob("*.log"))
    assert logs and any("source_tree" in p.read_text() or "vtgate" in p.read_text() for p in logs)
    assert kit.leftover_worktrees(repo.path) == []
