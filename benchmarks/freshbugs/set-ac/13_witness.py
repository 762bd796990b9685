"""13: silu_f32 is x*sigmoid(x) in float64 rounded once to float32; for x in [-100, -88] the result is
a float32 subnormal, and most of them survive the engine's next bf16 rounding."""
import numpy as np

from vtengine.numerics import round_bf16, silu_f32

x = np.arange(-100, -87, 1, dtype=np.float32)
y = silu_f32(x)
nz32 = int(np.count_nonzero(y))
nzb = int(np.count_nonzero(round_bf16(y)))
print(f"nonzero silu outputs: float32 {nz32}/13, after bf16 rounding {nzb}/13, sign bits {int(np.signbit(y).sum())}")
