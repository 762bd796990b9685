"""Numeric building blocks whose bits are the contract: bf16 rounding, fp8-e4m3 block quantization,
strictly sequential float32 sums, an exactly rounded float32 fma, and transcendentals correctly
rounded to float32 (the same bits on every CPU).

NumPy's ``add.reduce`` is pairwise (8 partial sums) when the reduced axis is the innermost loop and
strictly sequential when it is an outer loop; :func:`sum_sequential` only ever takes the second road.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal, localcontext

import ml_dtypes
import numpy as np

BF16 = np.dtype(ml_dtypes.bfloat16)
FP8 = np.dtype(ml_dtypes.float8_e4m3fn)
FP8_MAX = 448.0  # largest finite e4m3fn; ml_dtypes maps overflow to NaN, so clip first
QUANT_BLOCK = 128  # DeepSeek-V3 style 128x128 weight blocks, edges zero-padded


def round_bf16(x: np.ndarray) -> np.ndarray:
    """Round float32 values to the nearest bf16 (ties to even, ml_dtypes), returned as float32."""
    return np.asarray(x, dtype=np.float32).astype(BF16).astype(np.float32)


def identity(x: np.ndarray) -> np.ndarray:
    return x


def sum_sequential(a: np.ndarray, axis: int) -> np.ndarray:
    """Sum float32 ``a`` along ``axis`` strictly in index order: (((0 + a0) + a1) + a2) + ...

    ``add.reduce`` is sequential when the reduced axis is an outer loop of a C-contiguous array with
    >= 2 trailing elements; otherwise ``add.accumulate`` (always sequential) does the work.
    """
    axis = axis % a.ndim
    if a.flags.c_contiguous and math.prod(a.shape[axis + 1 :]) >= 2:
        return np.add.reduce(a, axis=axis)
    last = np.take(np.add.accumulate(a, axis=axis), -1, axis=axis)
    # add.reduce starts from the identity +0.0; adding +0.0 gives accumulate the same signed zero
    return last + np.float32(0.0)


def fma_f32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Correctly rounded float32 ``a*b + c`` (one rounding), elementwise.

    a*b is exact in float64 (24+24 significand bits < 53). The float64 sum is rounded to odd via
    TwoSum (sticky last bit when inexact); rounding a round-to-odd value with 53 >= 24+2 bits to
    float32 is the correctly rounded result (Boldo & Melquiond).
    """
    p = np.asarray(a, np.float64) * np.asarray(b, np.float64)
    c64 = np.asarray(c, np.float64)
    s = p + c64
    bp = s - p
    err = (p - (s - bp)) + (c64 - bp)  # exact: s + err == p + c64
    bits = s.view(np.int64)
    needs_odd = (err != 0) & ((bits & 1) == 0)
    if np.any(needs_odd):
        # step one ulp toward the exact value: +1 on the int view grows the magnitude
        step = np.where((err > 0) == (s > 0), 1, -1).astype(np.int64)
        bits = np.where(needs_odd, bits + step, bits)
    return bits.view(np.float64).astype(np.float32)


def exp_f32(x: np.ndarray) -> np.ndarray:  # x: float32 array
    """exp correctly rounded to float32: computed in float64, rounded once, and near a float32
    rounding boundary computed again exactly (float32 exp kernels differ in the last ulp between
    CPUs, float64 ones in the last few: see :func:`portable_f32`)."""
    x64 = np.asarray(x, np.float64)
    return portable_f32(np.exp(x64), x64, lambda d: d.exp())


def silu_f32(x: np.ndarray) -> np.ndarray:
    """x * sigmoid(x) computed in float64, rounded once to float32."""
    x64 = np.asarray(x, np.float64)
    return portable_f32(x64 / (1.0 + np.exp(-x64)), x64, lambda d: d / (1 + (-d).exp()))


# NumPy picks its float64 exp, sin, cos and power kernels by CPU feature (AVX-512 and AVX2 give other
# last bits), each a few float64 ulps from the true value. Rounded to float32 those few ulps vanish,
# except where the true value lies within them of a float32 rounding boundary (the midpoint of two
# float32 neighbours). Such values, about one in a million, are computed again in decimal arithmetic
# and rounded once: the float32 result is the correctly rounded one, whatever the CPU.
NEAR_ULPS = 256  # within this many float64 ulps of a float32 boundary, the value is computed exactly
_DIGITS = 60  # decimal digits of the exact computation (a float32 needs 9, a float64 17)
_F32_OVERFLOW = Decimal(2**128 - 2**103)  # float32's largest plus half its last step (exact): rounds to inf
_PI = Decimal("3.141592653589793238462643383279502884197169399375105820974944592307816406286208998628")


def near_f32_boundary(v: np.ndarray) -> np.ndarray:
    """Where float64 ``v`` lies within :data:`NEAR_ULPS` of a float32 rounding boundary (never at a
    NaN or an infinity)."""
    v = np.ascontiguousarray(v, np.float64)
    # a float32-normal value rounds on its low 29 mantissa bits: the boundary is 1 followed by 28 zeros
    low = (v.view(np.uint64) & np.uint64(0x1FFFFFFF)).astype(np.int64)
    near = np.abs(low - (1 << 28)) <= NEAR_ULPS
    # below float32's smallest normal, float32 steps are 2**-149 whatever the exponent
    tiny = (np.abs(v) < 2.0**-126) & (v != 0)
    if np.any(tiny):
        steps = np.abs(v[tiny]) * 2.0**149
        near[tiny] = np.abs(steps - np.floor(steps) - 0.5) <= NEAR_ULPS * np.spacing(steps)
    return near


def f32_of_decimal(x: Decimal) -> np.float32:
    """``x`` rounded once to float32, ties to even."""
    if x.copy_abs() >= _F32_OVERFLOW:  # copy_abs: exact (abs() rounds to the context's 28 digits)
        return np.float32(math.copysign(math.inf, x))
    d = float(x)  # rounded once, to float64
    with np.errstate(over="ignore"):
        r = np.float32(d)  # and again, to float32: as x rounds once, unless d is a float32 midpoint
    if not np.isfinite(r):  # d reached the threshold, x did not: the largest float32
        return np.float32(math.copysign(float(np.finfo(np.float32).max), x))
    if d != float(r):
        other = np.nextafter(r, np.float32(math.copysign(math.inf, d - float(r))))
        if (float(r) + float(other)) / 2 == d:  # d is a float32 midpoint: x's side of it decides, a tie stays even
            return other if (x - Decimal(d)) * (Decimal(float(other)) - Decimal(d)) > 0 else r
    return r


def portable_f32(approx: np.ndarray, args: np.ndarray, exact: Callable[[Decimal], Decimal]) -> np.ndarray:
    """``approx`` (float64 values a few ulps from ``exact`` of ``args``) rounded to float32, with the
    values near a float32 boundary replaced by ``exact(Decimal(arg))`` rounded once."""
    approx = np.asarray(approx, np.float64)
    out = approx.astype(np.float32)
    near = near_f32_boundary(approx)
    if np.any(near):
        flat_out, flat_near = out.reshape(-1), near.reshape(-1)
        flat_args = np.broadcast_to(np.asarray(args, np.float64), approx.shape).reshape(-1)
        with localcontext() as ctx:
            ctx.prec = _DIGITS
            for i in np.flatnonzero(flat_near):
                flat_out[i] = f32_of_decimal(+exact(Decimal(float(flat_args[i]))))
        out = flat_out.reshape(approx.shape)
    return out


def _cos_sin_decimal(x: Decimal) -> tuple[Decimal, Decimal]:
    """cos and sin of ``x`` to the context's precision: reduced by pi/2, then Taylor series."""
    with localcontext() as ctx:
        ctx.prec += 10 + len(str(int(abs(x))))  # the digits the reduction cancels
        quarter = _PI / 2
        turns = int((x / quarter).to_integral_value())
        r = x - turns * quarter
        r2, tiny = r * r, Decimal(10) ** -(ctx.prec + 2)

        def series(term: Decimal, k: int) -> Decimal:  # term - term r^2/((k+1)(k+2)) + ...
            total = Decimal(0)
            while term and (not total or abs(term) > abs(total) * tiny):
                total, term, k = total + term, -term * r2 / ((k + 1) * (k + 2)), k + 2
            return total

        cos, sin = series(Decimal(1), 0), series(r, 1)
    return ((cos, sin), (-sin, cos), (-cos, -sin), (sin, -cos))[turns % 4]


def cos_sin_f32(angles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of float64 ``angles``, each correctly rounded to float32 (the RoPE tables)."""
    a = np.asarray(angles, np.float64)
    return (portable_f32(np.cos(a), a, lambda d: _cos_sin_decimal(d)[0]),
            portable_f32(np.sin(a), a, lambda d: _cos_sin_decimal(d)[1]))


def pow_f64(base: float, exponents: np.ndarray) -> np.ndarray:
    """``base ** exponents`` correctly rounded to float64 (NumPy's float64 power differs in the last
    ulp between CPUs). ``base`` > 0; computed in decimal, one value per exponent: for short vectors."""
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        log = Decimal(float(base)).ln()
        return np.array([float((log * Decimal(float(e))).exp()) for e in np.asarray(exponents).ravel()],
                        np.float64).reshape(np.shape(exponents))


def quantize_fp8_blocks(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Quantize a 2-D float32 weight to fp8-e4m3 with one float32 scale per 128x128 block.

    Returns (codes as uint8 [rows, cols], scales float32 [ceil(rows/128), ceil(cols/128)]).
    scale = amax / 448 (1 for an all-zero block); codes = fp8(clip(w / scale, -448, 448)).
    """
    w = np.asarray(w, np.float32)
    rows, cols = w.shape
    br, bc = -(-rows // QUANT_BLOCK), -(-cols // QUANT_BLOCK)
    padded = np.zeros((br * QUANT_BLOCK, bc * QUANT_BLOCK), np.float32)  # zero-padded edges
    padded[:rows, :cols] = w
    blocks = padded.reshape(br, QUANT_BLOCK, bc, QUANT_BLOCK)
    amax = np.abs(blocks).max(axis=(1, 3))
    scales = np.where(amax > 0, amax / np.float32(FP8_MAX), np.float32(1.0)).astype(np.float32)
    scaled = blocks / scales[:, None, :, None]
    codes = np.clip(scaled, -FP8_MAX, FP8_MAX).astype(FP8)
    return codes.reshape(padded.shape)[:rows, :cols].view(np.uint8).copy(), scales


def dequantize_fp8_blocks(codes: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """float32(fp8 code) * block scale, rounded in float32 (the engine then rounds to bf16)."""
    rows, cols = codes.shape
    values = codes.view(FP8).astype(np.float32)
    full = np.repeat(np.repeat(scales, QUANT_BLOCK, axis=0), QUANT_BLOCK, axis=1)[:rows, :cols]
    return values * full
