"""[suite] artifacts in gate mode: the untracked files a suite declares (ignored weights) are linked
from your checkout into each worktree, so the candidate is judged on them instead of failing on a
missing file, and their digests are part of every verdict's key: other weights, fresh judgements
(which, against goldens blessed on the old weights, refuse GOOD)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

VTGATE = str(Path(sys.executable).parent / "vtgate")

SUITE = """\
[suite]
pythonpath = ["src"]
knob_prefixes = ["SVC_"]
artifacts = ["models/*.txt"]
timeout = 30

[[gate]]
name = "width"
kind = "counters"
counters = ["width"]
probe = "svc.probes:measure"
"""

PROBES = ("from pathlib import Path\n\nfrom svc.width import WIDTH\n\n\ndef measure() -> dict:\n"
          "    scale = int(Path('models/scale.txt').read_text())\n"
          "    return {'counters': {'width': WIDTH * scale}}\n")


def test_worktrees_get_the_artifacts_and_other_weights_are_judged_afresh(make_history, vtbisect, tmp_path,
                                                                          monkeypatch) -> None:
    monkeypatch.setenv("VT_BISECT_CACHE_DIR", str(tmp_path / "cache"))
    repo = make_history("svc")
    (repo.path / "models").mkdir()
    (repo.path / "models" / "scale.txt").write_text("3\n")
    repo.commit({"vtgate.toml": SUITE, ".gitignore": "models/\n", "src/svc/__init__.py": "",
                 "src/svc/probes.py": PROBES, "src/svc/width.py": "WIDTH = 4\n"}, "service")
    done = subprocess.run([VTGATE, "bless", "width", "--reason", "first measurement"], cwd=repo.path,
                          capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1", "COLUMNS": "1000"})
    assert done.returncode == 0, done.stderr
    repo.commit({}, "bless")
    repo.filler(2)
    repo.commit({"src/svc/width.py": "WIDTH = 5\n"}, "widen")
    repo.filler(1)
    first = vtbisect(repo.path, f"{repo.shas[1]}..HEAD", "--gate", "width")
    assert first.code == 1, first.stderr
    assert first.culprits[0]["subject"] == "widen"
    again = vtbisect(repo.path, f"{repo.shas[1]}..HEAD", "--gate", "width")
    assert again.record["evaluations"] == 0  # same weights: every verdict from the cache
    (repo.path / "models" / "scale.txt").write_text("3 \n")  # other bytes, same numbers
    reweighted = vtbisect(repo.path, f"{repo.shas[1]}..HEAD", "--gate", "width")
    # Judged afresh (the cache held "good" for GOOD): the golden was blessed on the old weights, whose
    # digest it records, so on these GOOD itself is not green and the bisection stops (exit 2).
    assert reweighted.code == 2
    # The message names the weights, not a generic "judges bad": no older GOOD would help.
    assert f"GOOD endpoint {repo.shas[1][:10]}: gate width sees other artifacts (weights)" in reweighted.stderr
    assert "models/scale.txt" in reweighted.stderr
    assert "re-bless with these (vtgate bless)" in reweighted.stderr
