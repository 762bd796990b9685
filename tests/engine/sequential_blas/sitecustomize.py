"""A test double of a BLAS that adds in the default arm's order, loaded at interpreter start by any
Python whose PYTHONPATH holds this folder (tests/engine/test_sequential_blas.py puts it there).

It replaces the engine's BLAS GEMV with a loop that starts every output at +0.0 and adds the K
products one after another, in index order, each product rounded to float32, no FMA: what an AMD
EPYC's OpenBLAS was seen doing for small batches of the engine's bf16 operands (where products are
exact, so FMA would not change a bit either). Nothing else in the engine changes."""

import numpy as np
import vtengine.gemv


def sequential_blas_gemv(x: np.ndarray, w_t: np.ndarray) -> np.ndarray:
    out = np.zeros((x.shape[0], w_t.shape[1]), np.float32)
    for k in range(x.shape[1]):
        out = out + x[:, k : k + 1] * w_t[k : k + 1, :]  # float32 product, then one float32 add
    return out


vtengine.gemv.GEMV_ARMS["blas"] = sequential_blas_gemv
vtengine.gemv.gemv_blas = sequential_blas_gemv  # for tests that import the arm by name
