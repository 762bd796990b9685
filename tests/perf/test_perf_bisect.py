"""vtbisect on a perf gate: a real git history of the fake engine, whose per-step cost is the constant
``SLOW`` in its tracked source; one commit makes every step 2.5 times as expensive. Each candidate is
timed against GOOD's commit on the same host (the gate declares ``reference = { ref = "main" }``;
vtbisect replaces it with GOOD), and the per-leg evidence is in the step logs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a whole bisection, each candidate a vtgate check timing interleaved legs

# 2.5x the work per step is a ratio near 0.4; same code near 1.0. The threshold sits between them
# (their geometric middle is 0.63), with rounds enough that neither side lands near it. It was 1.3x
# (threshold 0.87), then 1.6x (0.625 against 1.0, threshold 0.79): in CI beside the other slow tests
# (the gate has no preflight here: quiet = false) the load pulled the measured ratio up to 0.71, the
# culprit's confirmation came out inconclusive twice, and vtbisect rightly answered "one of two
# commits" (exact = false) instead of naming it. How small a slowdown the gate resolves is the
# benchmark's business (docs/perf.md), not this test's.
# --confirm 2 re-judges the culprit and its parent, so one leg-level accident cannot name a neighbour.
GATE_OPTIONS = 'workers = 2\nlooks = 3\nleg_timeout = 60'


def vtbisect(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "1000"}
    env.pop("PYTHONPATH", None)
    return subprocess.run([sys.executable, "-m", "vtbisect", "run", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=900, check=False)


def test_vtbisect_names_the_commit_that_made_every_step_two_and_a_half_times_slower(perfkit, tmp_project, tmp_path):
    project = tmp_project(perfkit.gate(min_ratio=0.63, rounds=8, reference='{ ref = "main" }', extra=GATE_OPTIONS))
    good = perfkit.git(project.root, "rev-parse", "HEAD")
    notes = project.root / "notes.txt"
    for number in range(2):
        notes.write_text(f"note {number}\n")
        project.commit(f"notes {number}")
    project.set_slow(2.5)
    culprit = project.commit("engine: a costlier step")
    for number in range(2, 5):
        notes.write_text(f"note {number}\n")
        project.commit(f"notes {number}")
    evidence = tmp_path / "evidence"
    record = tmp_path / "bisect.json"
    ran = vtbisect(project.root, f"{good}..HEAD", "--gate", "fake-perf", "--suite", str(project.suite),
                   "--json", str(record), "--evidence", str(evidence), "--cache-dir", str(tmp_path / "cache"),
                   "--confirm", "2")  # the culprit and its parent judged afresh: what a user on a shared host adds
    assert ran.returncode == 1, ran.stderr + ran.stdout
    (found,) = json.loads(record.read_text())["culprits"]
    assert found["commit"] == culprit and found["exact"] and found["gates"] == ["fake-perf"], ran.stderr
    logs = "\n".join(path.read_text() for path in sorted((evidence / "steps").iterdir()))
    # every candidate was timed against GOOD's commit, with each leg written down
    assert f"reference: {good} = {good}" in logs
    assert "# perf evidence: fake-perf -> bad (red)" in logs and "# perf evidence: fake-perf -> good (green)" in logs
    assert "leg 0: candidate round 1 worker 0 value " in logs
    # the main branch is not what the candidates were measured against: main is BAD here
    assert perfkit.git(project.root, "rev-parse", "main") != good
