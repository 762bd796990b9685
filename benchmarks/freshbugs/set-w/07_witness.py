"""07: numerics.round_bf16 "rounds float32 values to the nearest bf16 (ties to even), returned as float32":
whatever it is handed (a float64 array, a list, a scalar) is taken as float32 values first. The float64
value 1 + 2^-8 + 2^-30 is 1 + 2^-8 in float32, an exact bf16 tie, which goes to even: 1.0."""
import numpy as np

import _w
from vtengine.numerics import round_bf16

x64 = np.array([1 + 2**-8 + 2**-30, 3 + 2**-6 + 2**-40, -(1 + 2**-8 + 2**-30)])
got = round_bf16(x64)
ref = round_bf16(x64.astype(np.float32))
print("float64 input:", got.tolist(), "| equals the float32 input's result:", bool(np.array_equal(got, ref)))
print("list input:", _w.outcome(lambda: round_bf16([1.0, 2.5, 1 + 2**-9]).tolist()))
print("summary: float64 == float32 path", bool(np.array_equal(got, ref)), "| list", _w.outcome(lambda: round_bf16([1.0]).tolist()))
