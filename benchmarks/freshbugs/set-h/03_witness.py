# fma_f32 is correctly rounded (one rounding) for negative sums too
import numpy as np
from vtengine.numerics import fma_f32
a = np.array([1 + 2**-12, -(1 + 2**-12)], np.float32)
b = np.array([1 + 2**-12, 1 + 2**-12], np.float32)
c = np.array([2**-60, 2**-60], np.float32)
# exact: +-(1 + 2^-11 + 2^-24) + 2^-60: above the float32 tie for +, below it in magnitude for -
r = fma_f32(a, b, c)
print([float(x).hex() for x in r])
