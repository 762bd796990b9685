"""A perf gate on the real engine: vtengine's decode_timing probe, the reference being the committed
engine (ref = "main"), the candidate a working tree patched with a fixed CPU cost in every RMSNorm
call (several times the cost of a decode step, so the verdict cannot depend on machine load). The
verdict must be red, and name the norms stage as the one that moved, in prefill and in decode."""

from __future__ import annotations

import shutil
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine" / "vtengine"
NORM_START = "        prof = self.prof\n        t0 = clock() if prof else 0.0\n        # mean of squares"

SUITE = '''
[suite]
pythonpath = ["engine"]
source_tree = "engine/vtengine"
goldens = "goldens"
timeout = 600

[[gate]]
name = "decode-perf"
kind = "perf"
probe = "vtengine.probes:decode_timing"
args = { prompt = "bench", tokens = 6, repeats = 1 }
metric = "timing.decode_cpu_tok_s"
min_ratio = 0.8
rounds = 3
warmup = 0
reference = { ref = "main" }
quiet = false
'''


def slow_norms(engine_py: Path, seconds: float) -> None:
    """The patch: spin ``seconds`` of CPU time at the start of every RMSNorm (a fixed cost per call)."""
    text = engine_py.read_text()
    assert text.count(NORM_START) == 1, "the engine's _rmsnorm changed: update the patch"
    spin = (f"        prof = self.prof\n        t0 = clock() if prof else 0.0\n"
            f"        spin_until = time.process_time() + {seconds!r}  # injected slowdown\n"
            "        while time.process_time() < spin_until:\n            pass\n        # mean of squares")
    engine_py.write_text(text.replace("import math\n", "import math\nimport time\n", 1).replace(NORM_START, spin))


def test_a_patched_engine_with_slower_norms_is_red_against_main_and_the_norms_stage_moved(perfkit, tmp_path):
    root = tmp_path / "project"
    shutil.copytree(ENGINE, root / "engine" / "vtengine", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "gates.toml").write_text(SUITE)
    (root / ".gitignore").write_text(".vtgate-cache/\n__pycache__/\n")
    perfkit.git(root, "init", "-q", "-b", "main")
    perfkit.git(root, "config", "user.email", "perf@test")
    perfkit.git(root, "config", "user.name", "perf test")
    project = perfkit.project(root)
    project.commit("the engine")
    perfkit.bless(project, "decode-perf")
    slow_norms(root / "engine" / "vtengine" / "engine.py", 0.004)
    code, report, _ = project.check_json("-k", "perf")
    (gate,) = report["gates"]
    assert code == 1 and gate["status"] == "red", gate["summary"]
    assert gate["measured"]["high"] < 0.8
    stages = gate["measured"]["stages"]
    assert max(stages["decode"], key=lambda s: stages["decode"][s]) == "norms"
    assert max(stages["prefill"], key=lambda s: stages["prefill"][s]) == "norms"
    assert "decode: norms +" in gate["summary"]
