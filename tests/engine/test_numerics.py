"""Numeric building blocks: sequential sums really are sequential, the fma is correctly rounded,
bf16 rounds to nearest-even, fp8 block quantization clips, pads and scales per block, and the
transcendentals (exp, silu, RoPE's power, cos and sin) are the correctly rounded float32 on any CPU."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from vtengine.numerics import (
    FP8_MAX,
    NEAR_ULPS,
    cos_sin_f32,
    dequantize_fp8_blocks,
    exp_f32,
    fma_f32,
    near_f32_boundary,
    portable_f32,
    pow_f64,
    quantize_fp8_blocks,
    round_bf16,
    silu_f32,
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


def nearest_f32(exact: Fraction) -> np.float32:
    """The oracle: the float32 nearest to ``exact``, ties to the even one (finite values only)."""
    f = np.float32(float(exact))
    candidates = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
    return min(candidates, key=lambda c: (abs(Fraction(float(c)) - exact), int(c.view(np.uint32)) & 1))


def midpoint_of(f: float) -> float:
    """The float64 midpoint between float32 ``f`` and its upper neighbour (exact in float64)."""
    f32 = np.float32(f)
    return (float(f32) + float(np.nextafter(f32, np.float32(np.inf)))) / 2


def test_a_value_within_near_ulps_of_a_boundary_is_computed_again_and_rounded_correctly() -> None:
    """An approximation up to NEAR_ULPS float64 steps off, on the wrong side of a float32 midpoint:
    rounding it would give the wrong float32; portable_f32 computes those again exactly."""
    mid = midpoint_of(1.2345678)
    for side in (-1, 1):
        exact = Fraction(mid) + side * Fraction(1, 2**80)  # just beside the midpoint
        want = nearest_f32(exact)
        for off in (-NEAR_ULPS + 1, -100, -3, 3, 100, NEAR_ULPS - 1):
            approx = mid + off * math.ulp(mid)
            got = portable_f32(np.array([approx]), np.array([0.0]), lambda _d, e=exact: Decimal(e.numerator) / e.denominator)
            assert got[0] == want, (side, off)
            if (off > 0) != (side > 0):
                assert np.float32(approx) != want  # plain rounding is wrong here: the correction is what passes
    # far from every boundary the approximation is rounded as it is, never recomputed
    assert portable_f32(np.array([1.5]), np.array([0.0]), lambda _d: Decimal(7))[0] == np.float32(1.5)


def test_near_boundary_finds_midpoints_in_every_range_and_never_nan_or_infinity() -> None:
    for f in (1.0, 1.2345678, -3.0e-20, 6.0e37, 2.0**-127, 5 * 2.0**-149):  # normal and subnormal float32
        mid = midpoint_of(f)
        assert near_f32_boundary(np.array([mid, mid + 8 * math.ulp(mid)])).all(), f
        assert not near_f32_boundary(np.array([float(np.float32(f))]))[0], f
    assert not near_f32_boundary(np.array([np.nan, np.inf, -np.inf, 0.0])).any()


def exact_exp(x: float) -> Fraction:
    with localcontext() as ctx:
        ctx.prec = 80
        return Fraction(Decimal(x).exp())


def test_exp_and_silu_are_the_correctly_rounded_float32_even_beside_a_midpoint() -> None:
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(200_000) * 20).astype(np.float32)
    # inputs whose float64 exp lies beside a float32 midpoint, found among many (about one in a million)
    pool = (rng.standard_normal(3_000_000) * 20).astype(np.float32)
    beside = pool[near_f32_boundary(np.exp(pool.astype(np.float64)))]
    assert beside.size >= 1
    check = np.concatenate([beside, x[:300], np.float32([0.0, -0.0, -87.5, -103.9, 88.5, 3 * 2.0**-149])])
    got_exp, got_silu = exp_f32(check), silu_f32(check)
    for v, e, s in zip(check.tolist(), got_exp, got_silu, strict=True):
        with np.errstate(over="ignore"):
            assert e == (nearest_f32(exact_exp(v)) if v < 88.7 else np.float32(np.inf)), v
            silu = Fraction(v) / (1 + exact_exp(-v)) if v > -700 else Fraction(0)
            assert s == nearest_f32(silu) or (v <= -700 and s == 0), v
    # an element's result does not depend on the array it came in
    assert exp_f32(check).tobytes() == np.concatenate([exp_f32(check[i:i + 1]) for i in range(check.size)]).tobytes()


def test_rope_tables_are_correctly_rounded_where_libm_is_far_from_a_boundary_and_close_to_it() -> None:
    """cos and sin of long-context angles: where glibc's float64 result (under one ulp off) is far
    from a float32 midpoint its rounding is the right answer; cos^2 + sin^2 is 1 everywhere."""
    inv_freq = 1.0 / pow_f64(500_000.0, np.arange(0, 128, 2, dtype=np.float64) / 128)
    with localcontext() as ctx:
        ctx.prec = 60
        for e, got in zip(np.arange(0, 128, 2) / 128, pow_f64(500_000.0, np.arange(0, 128, 2) / 128), strict=True):
            assert got == float((Decimal(500_000).ln() * Decimal(float(e))).exp())
    rng = np.random.default_rng(3)
    angles = rng.integers(0, 32_768, 4000)[:, None] * inv_freq[None, :]
    cos, sin = cos_sin_f32(angles)
    checked = 0
    for a, c, s in zip(angles.ravel()[:20_000].tolist(), cos.ravel()[:20_000], sin.ravel()[:20_000], strict=True):
        for want, got in ((math.cos(a), c), (math.sin(a), s)):
            r = np.float32(want)
            toward = np.nextafter(r, np.float32(np.inf if want > float(r) else -np.inf))
            if abs(want - (float(r) + float(toward)) / 2) > 4 * math.ulp(want) and abs(want) > 2.0**-100:
                assert got == r, a
                checked += 1
    assert checked > 39_000
    assert np.abs(cos.astype(np.float64) ** 2 + sin.astype(np.float64) ** 2 - 1).max() < 2e-7
