"""fma_f32 must be correctly rounded (one rounding of a*b+c); here a*b+c = 1 + 2^-24 + tiny."""
import numpy as np

from vtengine.numerics import fma_f32

a, b, c = np.float32(0.6076091), np.float32(9.8097026e-08), np.float32(1.0)
got = fma_f32(np.array([a]), np.array([b]), np.array([c]))[0]
print("fma_f32:", repr(float(got)))
