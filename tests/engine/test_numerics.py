"""Numeric building blocks: sequential sums really are sequential, the fma is correctly rounded,
bf16 rounds to nearest-even, fp8 block quantization clips, pads and scales per block."""

from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from vtengine.numerics import (
    FP8_MAX,
    dequantize_fp8_blocks,
    fma_f32,
    quantize_fp8_blocks,
    round_bf16,
    sum_sequential,
)


def python_sequential(values: np.ndarray) -> np.float32:
    acc = np.float32(0.0)
    for v in values:
        acc = np.float32(acc + v)
    return acc


@pytest.mark.parametrize("shape,axis", [((64, 5), 0), ((3, 40, 2), 1), ((7, 33), 1), ((40,), 0), ((40, 1), 0), ((2, 33, 1), 1)])
def test_sum_sequential_matches_a_python_loop_in_index_order(shape: tuple[int, ...], axis: int) -> None:
    rng = np.random.default_rng(1)
    # wide magnitudes so that pairwise and sequential orders disagree
    a = (rng.standard_normal(shape) * 10.0 ** rng.integers(-4, 5, shape)).astype(np.float32)
    got = sum_sequential(a, axis)
    moved = np.moveaxis(a, axis, -1).reshape(-1, a.shape[axis])
    want = np.array([python_sequential(row) for row in moved], np.float32).reshape(got.shape)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


def test_sum_sequential_differs_from_numpy_pairwise_sum_on_a_contiguous_axis() -> None:
    # the property the default arm relies on: numpy's own contiguous sum is not sequential
    rng = np.random.default_rng(2)
    a = (rng.standard_normal((200, 64)) * 10.0 ** rng.integers(-4, 5, (200, 64))).astype(np.float32)
    assert not np.array_equal(sum_sequential(a, 1), a.sum(axis=1))


def test_sum_sequential_of_negative_zeros_is_positive_zero_on_both_roads() -> None:
    column = np.full((4, 1), -0.0, np.float32)
    wide = np.full((4, 3), -0.0, np.float32)
    assert not np.signbit(sum_sequential(column, 0)).any()
    assert not np.signbit(sum_sequential(wide, 0)).any()


def test_fma_is_correctly_rounded_against_exact_rationals() -> None:
    rng = np.random.default_rng(3)
    n = 4000
    a = (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 20, n)).astype(np.float32)
    b = (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 20, n)).astype(np.float32)
    c = (-(a.astype(np.float64) * b) * (1 + rng.standard_normal(n) * 1e-6)).astype(np.float32)  # cancellation
    got = fma_f32(a, b, c)
    separate = (a * b) + c
    for i in range(n):
        exact = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
        # the correctly rounded float32: nearest of the two float32 neighbours (ties to even)
        want = np.float32(float(exact))  # float(Fraction) is correctly rounded to float64 ...
        lo, hi = sorted([want, np.nextafter(want, np.float32(np.inf if exact > Fraction(float(want)) else -np.inf))])
        dlo, dhi = abs(exact - Fraction(float(lo))), abs(exact - Fraction(float(hi)))
        best = lo if dlo < dhi or (dlo == dhi and int(lo.view(np.uint32)) % 2 == 0) else hi
        assert got[i] == best, (i, a[i], b[i], c[i])
    assert (got != separate).any(), "the separate multiply-add must differ somewhere, else the test is blind"


def test_bf16_rounding_is_nearest_even_like_ml_dtypes() -> None:
    x = np.array([1.0 + 2**-8, 1.0 + 3 * 2**-8, 1.0 + 2**-9, -3.14159], np.float32)
    got = round_bf16(x)
    assert got[0] == 1.0  # tie -> even
    assert got[1] == 1.0 + 2**-6  # tie -> even (up)
    assert got[2] == 1.0
    assert np.array_equal(got, x.astype(ml_dtypes.bfloat16).astype(np.float32))


def test_fp8_block_quantization_pads_edges_and_scales_each_block() -> None:
    rng = np.random.default_rng(4)
    w = rng.standard_normal((200, 130)).astype(np.float32)
    w[:128, :128] *= 1000.0  # one loud block must not crush the others' resolution
    codes, scales = quantize_fp8_blocks(w)
    assert codes.shape == w.shape and codes.dtype == np.uint8
    assert scales.shape == (2, 2) and scales.dtype == np.float32
    back = dequantize_fp8_blocks(codes, scales)
    assert not np.isnan(back).any()
    quiet = np.abs(back[128:, 128:] - w[128:, 128:]).max() / np.abs(w[128:, 128:]).max()
    assert quiet < 0.07  # e4m3 has 3 mantissa bits: relative step <= 2**-3 / 2 of the block max
    assert np.abs(back).max() <= 1000.0 * np.abs(w[:128, :128] / 1000.0).max() * 1.0001


def test_fp8_quantization_clips_instead_of_producing_nan() -> None:
    w = np.zeros((4, 4), np.float32)
    w[0, 0] = 1e30
    w[1, 1] = -1e-30
    codes, scales = quantize_fp8_blocks(w)
    values = codes.view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    assert not np.isnan(values).any()
    assert values[0, 0] == FP8_MAX
