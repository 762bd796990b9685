"""The differential equivalence check (``vtgate mutate --code --equivalence N``): calls of a function
recorded from a real probe run are replayed, with seeded random variants, in the original tree and
in a mutated copy, each in its own process, and the outcomes compared bit for bit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from vtgate.mutate.equivalence import compare, module_name

GATES = str(Path(__file__).resolve().parents[2] / "gates")

KERNEL = '''import numpy as np


def scale(x):
    return (x * np.float32(3.0)).astype(np.float32)


def relu(x):
    return np.maximum(x, np.float32(0.0))


def probe():
    x = np.arange(6, dtype=np.float32) / np.float32(7.0)  # non-negative: relu is the identity here
    return {"scaled": float(scale(x).sum()), "relu": float(relu(x).sum())}
'''


def _tree(root: Path, source: str) -> Path:
    (root / "src" / "toy").mkdir(parents=True)
    (root / "src" / "toy" / "__init__.py").write_text("")
    (root / "src" / "toy" / "kern.py").write_text(source)
    return root


def _entry(tree: Path, *argv: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree / "src"), GATES])}
    done = subprocess.run([sys.executable, "-m", "vtgate.mutate.equivalence_entry", *argv], cwd=tree, env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def _differential(tmp_path: Path, function: str, mutated_source: str):
    original = _tree(tmp_path / "original", KERNEL)
    mutated = _tree(tmp_path / "mutated", mutated_source)
    capture = tmp_path / "capture.pkl"
    recorded = _entry(original, "capture", "--probe", "toy.kern:probe", "--out", str(capture), "--targets",
                      json.dumps([{"module": "toy.kern", "qualname": function, "key": function}]))
    assert recorded["recorded"] == {function: 1}
    calls = recorded["files"][function]  # one file a function
    replay = ["replay", "--module", "toy.kern", "--qualname", function, "--key", function, "--inputs", "40",
              "--seed", "3", calls]
    return compare(_entry(original, *replay), _entry(mutated, *replay), {Path(calls).name: "toy.kern:probe {}"})


def test_a_mutant_that_differs_only_on_inputs_the_probe_never_gives_is_not_equivalent(tmp_path: Path) -> None:
    # relu dropped: identical on the probe's non-negative input, different on a random one
    evidence = _differential(tmp_path, "relu", KERNEL.replace("np.maximum(x, np.float32(0.0))", "x"))
    assert evidence.differs
    assert "random variant" in evidence.detail and "recorded from toy.kern:probe" in evidence.detail


def test_an_exact_float64_intermediate_shows_no_difference_over_every_input(tmp_path: Path) -> None:
    # float32 * 3 computed in float64 then rounded once: the float64 product is exact (24 + 2 bits),
    # so rounding it gives the correctly rounded float32 product, what the float32 multiply gives
    mutated = KERNEL.replace("(x * np.float32(3.0)).astype(np.float32)",
                             "(x.astype(np.float64) * 3.0).astype(np.float32)")
    evidence = _differential(tmp_path, "scale", mutated)
    assert not evidence.differs
    assert evidence.inputs == 40 and "no difference over 40 inputs" in evidence.detail


def test_a_constant_nudge_differs_on_the_recorded_call_itself(tmp_path: Path) -> None:
    evidence = _differential(tmp_path, "scale", KERNEL.replace("np.float32(3.0))", "np.float32(3.003))"))
    assert evidence.differs and "input 0 (the recorded call" in evidence.detail


def test_a_source_file_maps_to_its_import_name_through_the_suite_pythonpath() -> None:
    assert module_name("engine/vtengine/numerics.py", ["engine"]) == "vtengine.numerics"
    assert module_name("engine/vtengine/__init__.py", ["engine"]) == "vtengine"
    assert module_name("toy/kern.py", []) == "toy.kern"
