"""Numeric building blocks whose bits are the contract: bf16 rounding, fp8-e4m3 block quantization,
strictly sequential float32 sums, an exactly rounded float32 fma, and float64 transcendentals.

NumPy's ``add.reduce`` is pairwise (8 partial sums) when the reduced axis is the innermost loop and
strictly sequential when it is an outer loop; :func:`sum_sequential` only ever takes the second road.
"""

from __future__ import annotations

import math

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
    """exp computed in float64, rounded once to float32: the float32 result does not depend on the
    CPU's SIMD exp (float32 exp kernels differ in the last ulp between CPUs)."""
    return np.exp(x.astype(np.float64)).astype(np.float32)


def silu_f32(x: np.ndarray) -> np.ndarray:
    """x * sigmoid(x) computed in float64, rounded once to float32."""
    x64 = np.asarray(x, np.float64)
    return (x64 / (1.0 + np.exp(-x64))).astype(np.float32)


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
