# sum_sequential promises (((0 + a0) + a1) + ...) in index order for any array; here a Fortran-ordered
# [K, N] matrix (e.g. the transposed view of a C-ordered weight) summed over K
import numpy as np

from vtengine.numerics import sum_sequential

rng = np.random.Generator(np.random.PCG64(3))
a = np.asfortranarray(rng.standard_normal((1000, 4)).astype(np.float32) * np.float32(1000))
strict = np.zeros(4, np.float32)
for row in a:
    strict = strict + row
got = sum_sequential(a, axis=0)
print("F-ordered:", a.flags.f_contiguous, "equals the strict sequential sum:", got.tobytes() == strict.tobytes())
