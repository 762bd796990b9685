"""12: numerics.fma_f32 (documented: correctly rounded float32 a*b + c, one rounding) against exact rational
arithmetic, on cases whose exact value lies just off a float32 midpoint, with the product smaller than c (an
accumulator that is already larger than the next product, as in the FMA arm's lanes)."""
from fractions import Fraction

import numpy as np

from vtengine.numerics import fma_f32

f32 = np.float32


def correctly_rounded(a, b, c):
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    f = f32(float(exact))
    cands = [np.nextafter(f, f32(-np.inf)), f, np.nextafter(f, f32(np.inf))]
    return min(cands, key=lambda x: (abs(Fraction(float(x)) - exact), int(np.array(x).view(np.int32)) & 1))


u, w = 1 + 2.0**-23, 1 - 2.0**-23  # (1 + 2^-23)(1 - 2^-23) = 1 - 2^-46: the product sits just below 2^-24
cases = [(2.0**-12 * u, 2.0**-12 * w, u), (2.0**-12 * u, 2.0**-12 * w, 1.0), (2.0**-12 * u, -2.0**-12 * w, -u),
         (2.0**-13 * u, 2.0**-13 * w, 0.5 * u), (3.0, 5.0, 0.25)]
a, b, c = (np.array(col, dtype=np.float32) for col in zip(*cases))
got = fma_f32(a, b, c)
ok = [bool(g == correctly_rounded(x, y, z)) for g, x, y, z in zip(got, a, b, c)]
print("fma_f32(2^-12(1+2^-23), 2^-12(1-2^-23), 1+2^-23) =", float(got[0]).hex())
print("correctly rounded per case:", ok)
