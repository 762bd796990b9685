"""A host whose BLAS adds in the default arm's order must stay green. The double in
sequential_blas/sitecustomize.py makes the engine's BLAS GEMV exactly that (every Python started with
it on PYTHONPATH loads it); here: it really is sequential, the engine's own tests pass under it, the
arm registry measures it identical to the default (so vtgate mutate expects no kill from it), and the
engine's gates stay green with the BLAS knob on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from vtgate.mutate.execute import arm_mutations, judge_mutation
from vtgate.mutate.spec import ArmsSource
from vtgate.run.check import run_check
from vtgate.suite.load import load_suite
from vtgate.suite.records import ProbeRef

REPO = Path(__file__).resolve().parents[2]
DOUBLE = Path(__file__).resolve().parent / "sequential_blas"
VTENGINE = str(Path(sys.executable).parent / "vtengine")

CHILD = """
import json
import numpy as np
import vtengine.gemv as gemv
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import load_model
from vtengine import tokenizer

two24 = np.float32(2**24)
x = np.ones((3, 4), np.float32)
w = np.array([[two24, 1], [1, two24], [1, 1], [1, -two24]], np.float32)
rng = np.random.default_rng(3)
a = rng.standard_normal((2, 64)).astype(np.float32)
b = rng.standard_normal((64, 5)).astype(np.float32)
loop = [[0.0] * 5 for _ in range(2)]
for i in range(2):
    for j in range(5):
        acc = np.float32(0.0)
        for k in range(64):
            acc = np.float32(acc + np.float32(a[i, k] * b[k, j]))
        loop[i][j] = float(acc)
tiny = load_model("vt-tiny")
ids = tokenizer.encode("The paged cache")
print(json.dumps({
    "arm": gemv.GEMV_ARMS["blas"].__module__ + ":" + gemv.GEMV_ARMS["blas"].__name__,
    "separating": gemv.GEMV_ARMS["blas"](x, w).tolist(),
    "equals_scalar_loop": gemv.GEMV_ARMS["blas"](a, b).tolist() == loop,
    "engine_equal": bool(np.array_equal(Engine(tiny, Knobs(gemv_blas=True)).generate(ids, 3).logits,
                                        Engine(tiny, Knobs()).generate(ids, 3).logits)),
}))
"""


def with_double(env: dict[str, str] | None = None) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("VT_")}
    base["PYTHONPATH"] = os.pathsep.join([str(DOUBLE), *filter(None, [os.environ.get("PYTHONPATH")])])
    return {**base, **(env or {})}


def test_the_double_is_loaded_and_adds_in_index_order_like_the_default() -> None:
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=with_double(),
                          cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["arm"] == "sitecustomize:sequential_blas_gemv"
    # index order from +0.0: 2**24 + 1 + 1 + 1 stays 2**24, 1 + 2**24 + 1 - 2**24 is 0 (test_arms.py)
    assert seen["separating"] == [[2.0**24, 0.0]] * 3
    assert seen["equals_scalar_loop"] is True
    assert seen["engine_equal"] is True  # the BLAS arm is now the default, bit for bit


def test_the_arm_registry_measures_the_double_identical_and_mutate_expects_no_kill() -> None:
    done = subprocess.run([VTENGINE, "arms", "--json", "-"], capture_output=True, text=True, env=with_double(),
                          cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    registry = json.loads(done.stdout)["arms"]
    blas = next(a for a in registry if a["name"] == "blas")
    assert blas["host_dependent"] is True and blas["differs_here"] is False
    assert "here it is bit-identical with the default" in done.stderr
    source = ArmsSource("engine-arms", ProbeRef(cmd=("python", "-m", "vtengine", "arms", "--json", "-")), "1", 1)
    mutations = {m.name: m for m in arm_mutations(source, registry)}
    assert mutations["arm-default:gemv.blas"].expected == {}
    assert "bit-identical with the default on this host" in mutations["arm-default:gemv.blas"].description
    # every other opt-in arm's order is its own: each must still turn a gate red, on every host
    assert {n: m.expected for n, m in mutations.items() if n != "arm-default:gemv.blas"} == dict.fromkeys(
        ["arm-default:paged_attention.scalar_fma", "arm-default:paged_attention.bfdot", "arm-default:gemv.bf16_dot"],
        {"*": "red"})
    judged = judge_mutation(mutations["arm-default:gemv.blas"], {}, {}, 0.0)
    assert judged.met and judged.kills == ()


@pytest.mark.slow
def test_the_engine_tests_pass_when_blas_adds_like_the_default() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-q",
         "tests/engine/test_arms.py", "tests/engine/test_invariance.py", "tests/engine/test_engine_cli.py"],
        capture_output=True, text=True, env=with_double(), cwd=REPO, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout and " failed" not in done.stdout


@pytest.mark.slow
def test_the_engine_gates_stay_green_with_the_blas_knob_on_when_blas_adds_like_the_default(monkeypatch) -> None:
    # on such a host the arm-default:gemv.blas mutation has nothing to kill: the default-tier pins hold
    monkeypatch.setenv("PYTHONPATH", with_double()["PYTHONPATH"])
    suite = load_suite(REPO / "goldens" / "gates.toml")
    gates = ["strict-hello", "decode-bench-anchor", "incremental-vs-recompute", "batch-composition-invariance"]
    report = run_check(suite, select=gates, extra_env={"VT_CPU_GEMV_BLAS": "1"})
    assert {g.name: g.status for g in report.gates} == dict.fromkeys(gates, "green")
