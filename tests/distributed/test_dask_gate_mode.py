"""vtbisect's gate mode on a real Dask cluster: each candidate judged by ``vtgate check`` on a worker
against the fixed oracle, with ``--all-culprits`` reverting a culprit at BAD on the worker; every
verdict and culprit is the local executor's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

VTGATE = str(Path(sys.executable).parent / "vtgate")
SUITE = """\
[suite]
pythonpath = ["src"]
timeout = 60

[[gate]]
name = "alpha"
kind = "counters"
counters = ["alpha"]
probe = "toyeng:measure"
"""
ENGINE = "from toyeng.alpha import ALPHA_A, ALPHA_B\n\n\ndef measure() -> dict:\n" \
         "    return {\"counters\": {\"alpha\": ALPHA_A + ALPHA_B}}\n"


def alpha_file(a: int, b: int) -> str:
    # the two parts far apart, so reverting a change to one never conflicts with a change to the other
    return f"ALPHA_A = {a}\n" + "\n" * 8 + f"ALPHA_B = {b}\n"


def commit(kit, repo: Path, files: dict[str, str], subject: str) -> str:
    for name, content in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(content)
    kit.git(repo, "add", "-A")
    kit.git(repo, "commit", "-q", "--allow-empty", "-m", subject)
    return kit.git(repo, "rev-parse", "HEAD")


def toy_history(kit, repo: Path) -> list[str]:
    """alpha breaks at shas[3]; with that reverted it is still red from shas[6] (a masked culprit)."""
    repo.mkdir()
    kit.git(repo, "init", "-q", "-b", "main")
    kit.git(repo, "config", "user.email", "dev@example.com")
    kit.git(repo, "config", "user.name", "Dev")
    shas = [commit(kit, repo, {"vtgate.toml": SUITE, "src/toyeng/__init__.py": ENGINE,
                               "src/toyeng/alpha.py": alpha_file(1, 1)}, "toy engine")]
    blessed = subprocess.run([VTGATE, "bless", "alpha", "--reason", "first measurement"], cwd=repo,
                             capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    assert blessed.returncode == 0, blessed.stderr
    shas.append(commit(kit, repo, {}, "bless the goldens"))
    shas.append(commit(kit, repo, {"notes.txt": "a\n"}, "filler"))
    shas.append(commit(kit, repo, {"src/toyeng/alpha.py": alpha_file(2, 1)}, "alpha: the first part"))
    shas.append(commit(kit, repo, {"notes.txt": "b\n"}, "filler"))
    shas.append(commit(kit, repo, {"notes.txt": "c\n"}, "filler"))
    shas.append(commit(kit, repo, {"src/toyeng/alpha.py": alpha_file(2, 5)}, "alpha: the second part"))
    shas.append(commit(kit, repo, {"notes.txt": "d\n"}, "filler"))
    return shas


def steps(record: dict) -> dict[tuple[str, tuple[str, ...], str], str]:
    return {(s["commit"], tuple(s["reverts"]), s["phase"]): s["verdict"] for s in record["steps"]}


def test_gate_mode_with_masked_culprits_on_two_workers_has_the_local_verdicts(kit, cluster_factory, tmp_path):
    repo = tmp_path / "toy"
    shas = toy_history(kit, repo)
    records = {}
    cluster = cluster_factory("gates", [("w1", ""), ("w2", "")])
    for name, extra in (("local", []), ("dask", ["--scheduler", cluster.address])):
        out = tmp_path / f"{name}.json"
        done = kit.vtbisect(repo, [f"{shas[1]}..HEAD", "--gate", "alpha", "--all-culprits", "-j", "2",
                                   "--no-cache", "--json", str(out), *extra])
        assert done.returncode == 1, done.stdout + done.stderr
        records[name] = json.loads(out.read_text())
    assert steps(records["dask"]) == steps(records["local"])
    culprits = {(c["commit"], c["masked_by"]) for c in records["dask"]["culprits"]}
    assert culprits == {(shas[3], None), (shas[6], shas[3])}
    assert any(s["reverts"] for s in records["dask"]["steps"])  # a revert was applied on a worker
    # the oracle (suite and goldens) travelled: the workers judged against their own unpacked copy
    assert list((tmp_path / "gates").glob("cache-w?/oracles/*/vtgate.toml"))


def test_gate_mode_judgements_go_only_to_workers_offering_the_gates_resources(kit, cluster_factory, tmp_path):
    repo = tmp_path / "toy"
    toy_history(kit, repo)
    suite = repo / "vtgate.toml"
    suite.write_text(suite.read_text() + "resources = { GPU = 1 }\n")  # the oracle is the checkout's suite
    cluster = cluster_factory("gate-gpu", [("gpu-host", "GPU=1"), ("cpu-host", "")])
    done = kit.vtbisect(repo, ["HEAD~6..HEAD", "--gate", "alpha", "-j", "2", "--no-cache",
                               "--scheduler", cluster.address])
    assert done.returncode == 1, done.stdout + done.stderr
    judged_by = [line for line in (done.stdout + done.stderr).splitlines() if "judged by worker" in line]
    assert judged_by and all(" gpu-host on " in line for line in judged_by)
    lone = cluster_factory("gate-cpu", [("cpu-host", "")])
    refused = kit.vtbisect(repo, ["HEAD~6..HEAD", "--gate", "alpha", "--no-cache", "--scheduler", lone.address])
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "offers GPU=1, which the judged gates need" in " ".join(refused.stderr.split())
