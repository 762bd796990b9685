"""Transcendentals and sums do not depend on the CPU's SIMD level: the probes, and a long context's
RoPE tables, give identical digests in a subprocess where NumPy's dispatchable SIMD targets (the ones
this CPU has) are switched off."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

try:  # NumPy 2 moved the private core module; the floor (1.x) still has the old name
    from numpy._core import _multiarray_umath as umath
except ImportError:
    from numpy.core import _multiarray_umath as umath

CHILD = """
import json
try:
    from numpy._core import _multiarray_umath as umath
except ImportError:
    from numpy.core import _multiarray_umath as umath
from vtengine import probes
gen = probes.generate("hello", 6)
tf = probes.teacher_forced("The cache", " is paged", 8)
att = probes.attention_cases("dispatch")
# a long context's RoPE tables (32768 positions x 64 frequencies, rope_theta 5e5): NumPy's float64
# power, cos and sin differ by CPU feature in the last ulps, and over four million values some of
# those differences survived the rounding to float32 until the tables were correctly rounded
import hashlib
import numpy as np
from vtengine.numerics import cos_sin_f32, exp_f32, pow_f64, silu_f32
inv_freq = 1.0 / pow_f64(500000.0, np.arange(0, 128, 2, dtype=np.float64) / 128)
cos, sin = cos_sin_f32(np.arange(32768, dtype=np.float64)[:, None] * inv_freq[None, :])
x = (np.random.default_rng(0).standard_normal(1_000_000) * 30).astype(np.float32)
tables = [inv_freq, cos, sin, exp_f32(x), silu_f32(x)]
print(json.dumps({
    "tables": [hashlib.sha256(np.ascontiguousarray(t).tobytes()).hexdigest() for t in tables],
    "features": {k: bool(v) for k, v in umath.__cpu_features__.items()},
    "generate": gen["digests"], "teacher_forced": tf["digests"], "attention": att["cases"],
}))
"""


def run_child(extra_env: dict[str, str]) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VT_", "NPY_"))}
    env.update(extra_env)
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_digests_are_identical_with_simd_dispatch_disabled() -> None:
    available = [f for f in umath.__cpu_dispatch__ if umath.__cpu_features__.get(f)]
    if not available:  # what the CPU has decides whether there is anything to compare; never assert it
        pytest.skip("this CPU has none of NumPy's dispatchable SIMD targets: its digests already are the baseline's")
    normal = run_child({})
    reduced = run_child({"NPY_DISABLE_CPU_FEATURES": " ".join(available)})
    assert all(normal["features"][f] for f in available)
    assert not any(reduced["features"][f] for f in available), "the features were not switched off"
    assert reduced["generate"] == normal["generate"]
    assert reduced["teacher_forced"] == normal["teacher_forced"]
    assert reduced["attention"] == normal["attention"]
    assert reduced["tables"] == normal["tables"]
