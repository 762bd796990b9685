"""07: fma_f32 must be the correctly rounded a*b + c; checked against exact rational arithmetic on
300 random float32 triples (c spread over 14 decades, so most float64 sums are inexact and the
round-to-odd step is taken for some and not for others)."""
from fractions import Fraction

import numpy as np

from vtengine.numerics import fma_f32

rng = np.random.default_rng(7)
a = rng.standard_normal(300).astype(np.float32)
b = rng.standard_normal(300).astype(np.float32)
c = (rng.standard_normal(300) * 10.0 ** rng.uniform(-14, 0, 300)).astype(np.float32)  # many sums inexact in float64
got = fma_f32(a, b, c)


def exact(x, y, z):
    v = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
    lo = np.float32(float(v))
    # the float32 nearest to v (ties to even): compare the neighbours of the float64 guess
    cands = [np.nextafter(lo, np.float32(-np.inf)), lo, np.nextafter(lo, np.float32(np.inf))]
    best = min(cands, key=lambda f: (abs(Fraction(float(f)) - v), int(np.float32(f).view(np.uint32)) & 1))
    return best


ok = sum(int(np.float32(got[i]).view(np.uint32) == np.float32(exact(a[i], b[i], c[i])).view(np.uint32))
         for i in range(300))
print(f"correctly rounded: {ok}/300")
print("every result correctly rounded:", ok == 300)
