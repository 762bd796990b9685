"""01: pow_f64 (the RoPE inverse-frequency power) is documented as correctly rounded to float64.
Checked against an exact computation of base ** (float exponent), for the exponents i/head_dim of
head dims that are not powers of two, then the engine's RoPE table of a head_dim-24 model."""
import sys
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np

sys.path.insert(0, __import__("os").path.dirname(__file__))
from _w import digest, engine, small_model  # noqa: E402

from vtengine.numerics import pow_f64  # noqa: E402


def exact(base: float, e: float) -> float:
    with localcontext() as ctx:
        ctx.prec = 80
        b, x = Fraction(base), Fraction(e)  # the exact binary values
        value = (Decimal(b.numerator) / Decimal(b.denominator)).ln() * (Decimal(x.numerator) / Decimal(x.denominator))
        return float(value.exp())  # float() of a Decimal rounds correctly


right = total = 0
for hd in (12, 24, 40, 48, 96, 120):
    exps = np.arange(0, hd, 2, dtype=np.float64) / hd
    got = pow_f64(10000.0, exps)
    for e, g in zip(exps, got):
        total += 1
        right += int(g == exact(10000.0, float(e)))
eng = engine(small_model(d_model=96, n_heads=4, n_kv_heads=2, max_context=4096), act_dtype="f32")
print(f"pow_f64 correctly rounded {right}/{total}; hd-24 rope tables {digest(eng.rope_cos)} {digest(eng.rope_sin)}")
