"""07 numerics.py: fma_f32 is the correctly rounded float32 a*b + c (checked against exact rationals)."""
from fractions import Fraction
import numpy as np
from vtengine.numerics import fma_f32

rng = np.random.Generator(np.random.PCG64(7))
a = rng.standard_normal(200).astype(np.float32)
b = rng.standard_normal(200).astype(np.float32)
c = rng.standard_normal(200).astype(np.float32)
got = fma_f32(a, b, c)


def exact(x, y, z):  # correctly rounded float32 of the exact value, via float64 neighbours and rationals
    v = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
    f = np.float32(float(v))
    cands = [f, np.nextafter(f, np.float32(np.inf)), np.nextafter(f, np.float32(-np.inf))]
    return min(cands, key=lambda q: (abs(Fraction(float(q)) - v), int(np.float32(q).view(np.uint32)) & 1))


ref = np.array([exact(x, y, z) for x, y, z in zip(a, b, c)], np.float32)
print(f"fma_f32 correctly rounded on 200 random triples: {int(np.count_nonzero(got.view(np.uint32) == ref.view(np.uint32)))}/200")
