"""The arm registry and the arms themselves: the dtype dispatch equals the scalar reference body in
the default arm for every case; each opt-in arm whose order is its own differs from the default in bits
on inputs built to separate the orders. The BLAS arm's order is the host's (BLAS build, CPU, threads),
so its tests assert only what holds on every host: the same product, within rounding distance."""

from __future__ import annotations

import numpy as np
import pytest
from vtengine import arms, probes
from vtengine.attention import attend_default, attend_scalar, gather_kv, paged_attention
from vtengine.engine import Engine
from vtengine.gemv import gemv_bf16_dot, gemv_blas, gemv_default
from vtengine.knobs import Knobs
from vtengine.model import Model
from vtengine.numerics import round_bf16


def test_registry_has_one_default_per_kernel_and_a_knob_per_opt_in_arm() -> None:
    for kernel in arms.KERNELS:
        entries = [a for a in arms.ARMS if a.kernel == kernel]
        assert [a.name for a in entries if a.default] == ["default"]
        for a in entries:
            assert (a.knob is None) == a.default
            assert a.bit_exact_with_default == a.default
    assert {a.knob for a in arms.ARMS if a.knob} == {
        "VT_CPU_PAGED_ATTN_SCALAR_FMA",
        "VT_CPU_PAGED_ATTN_BFDOT",
        "VT_CPU_GEMV_BF16_DOT",
        "VT_CPU_GEMV_BLAS",
    }


@pytest.mark.parametrize(
    "knobs,expected",
    [
        (Knobs(), {"paged_attention": "default", "gemv": "default"}),
        (Knobs(paged_attn_scalar_fma=True), {"paged_attention": "scalar_fma", "gemv": "default"}),
        (Knobs(paged_attn_bfdot=True, gemv_bf16_dot=True), {"paged_attention": "bfdot", "gemv": "bf16_dot"}),
        (Knobs(paged_attn_scalar_fma=True, paged_attn_bfdot=True, gemv_blas=True, gemv_bf16_dot=True),
         {"paged_attention": "scalar_fma", "gemv": "blas"}),
    ],
)
def test_select_arms_follows_the_knobs_and_precedence(knobs: Knobs, expected: dict[str, str]) -> None:
    assert arms.select_arms(knobs) == expected


@pytest.fixture(scope="module")
def scalar_cases() -> dict[str, str]:
    return probes.attention_cases("scalar")["cases"]


def dispatch_cases(arm: str) -> dict[str, str]:
    out = {}
    for case in probes.attention_case_ids():
        q, k_cache, v_cache, table, ctx, scale = probes.attention_case_inputs(case)
        out[case] = probes.digest_array(paged_attention(q, k_cache, v_cache, table, ctx, scale, arm))
    return out


def test_default_dispatch_is_bit_identical_to_the_scalar_body_for_every_case(scalar_cases) -> None:
    default = dispatch_cases("default")
    assert len(default) == len(scalar_cases) >= 100
    mismatched = [c for c in default if default[c] != scalar_cases[c]]
    assert mismatched == []


def test_fma_arm_differs_from_the_scalar_body_in_bits(scalar_cases) -> None:
    fma = dispatch_cases("scalar_fma")
    differing = [c for c in fma if fma[c] != scalar_cases[c]]
    assert len(differing) >= 10


def test_bfdot_arm_differs_only_on_bf16_bf16_cases(scalar_cases) -> None:
    bfdot = dispatch_cases("bfdot")
    differing = [c for c in bfdot if bfdot[c] != scalar_cases[c]]
    assert differing, "the bf16 pair-dot must change some q=bf16 kv=bf16 case"
    assert all(c.startswith("q=bf16,kv=bf16,") for c in differing)


def test_fma_output_stays_close_to_the_default() -> None:
    rng = np.random.default_rng(5)
    q = rng.standard_normal((8, 32)).astype(np.float32)
    k = rng.standard_normal((2, 32, 40)).astype(np.float32)
    v = rng.standard_normal((2, 40, 32)).astype(np.float32)
    scale = np.float32(32**-0.5)
    a = attend_default(q, k, v, 40, scale)
    from vtengine.attention import attend_fma

    b = attend_fma(q, k, v, 40, scale)
    assert not np.array_equal(a, b)
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-5)  # assert_close is happy; the bits are not


def test_gather_follows_the_block_table() -> None:
    n_kv, hd, bs = 1, 2, 2
    k_cache = np.arange(n_kv * hd * 4 * bs, dtype=np.float32).reshape(n_kv, hd, 4, bs)
    v_cache = np.zeros((n_kv, 4, bs, hd), np.float32)
    k, _ = gather_kv(k_cache, v_cache, np.array([3, 0]), 3)
    assert np.array_equal(k[0, 0], [k_cache[0, 0, 3, 0], k_cache[0, 0, 3, 1], k_cache[0, 0, 0, 0], k_cache[0, 0, 0, 1]])


def test_scalar_body_agrees_with_default_on_gqa_groups() -> None:
    rng = np.random.default_rng(6)
    q = rng.standard_normal((4, 8)).astype(np.float32)
    k = rng.standard_normal((2, 8, 6)).astype(np.float32)
    v = rng.standard_normal((2, 5, 8)).astype(np.float32)
    scale = np.float32(0.25)
    assert np.array_equal(attend_default(q, k, v, 5, scale), attend_scalar(q, k, v, 5, scale))


def gemv_inputs(m: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    x = round_bf16(rng.standard_normal((m, 256)).astype(np.float32))
    w = round_bf16(rng.standard_normal((256, 96)).astype(np.float32) * 10.0 ** rng.integers(-3, 3, (256, 1)))
    return x, w


TWO_24 = np.float32(2.0**24)  # above it, float32 steps by 2: 2**24 + 1 is a tie and rounds (to even) back down


def order_separating_inputs(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Every product exact and every partial sum a tie or exact, so each column's result says in which
    order its products were added, on any IEEE machine (no FMA question: products are exact):
    column 0, [2**24, 1, 1, 1]: sequential 2**24 (each +1 rounds back to even), pair-dot 2**24 + 2;
    column 1, [1, 2**24, 1, -2**24]: sequential 0, pair-dot 1."""
    x = np.ones((m, 4), np.float32)
    w = np.array([[TWO_24, 1], [1, TWO_24], [1, 1], [1, -TWO_24]], np.float32)
    return x, w


def small_integer_inputs(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Small integers: every product and every partial sum is exact in float32, so any summation
    order (blocked, threaded, vectorized, fused) gives the same bits."""
    rng = np.random.default_rng(11)
    return (rng.integers(-8, 9, (m, 256)).astype(np.float32), rng.integers(-8, 9, (256, 96)).astype(np.float32))


def test_gemv_default_accumulates_sequentially_along_k() -> None:
    x, w = gemv_inputs(2)
    got = gemv_default(x, w)
    for row in range(2):
        for col in (0, 17, 95):
            acc = np.float32(0.0)
            for kk in range(256):
                acc = np.float32(acc + np.float32(x[row, kk] * w[kk, col]))
            assert got[row, col] == acc


def test_bf16_dot_arm_differs_from_default_in_bits_on_inputs_that_separate_the_orders() -> None:
    x, w = order_separating_inputs(3)
    assert gemv_default(x, w).tolist() == [[TWO_24, 0.0]] * 3
    assert gemv_bf16_dot(x, w).tolist() == [[TWO_24 + 2, 1.0]] * 3


def test_bf16_dot_arm_stays_within_rounding_distance_of_the_default() -> None:
    x, w = gemv_inputs(4)
    np.testing.assert_allclose(gemv_bf16_dot(x, w), gemv_default(x, w), rtol=1e-4, atol=1e-3)


def test_blas_arm_computes_the_same_product_as_the_default() -> None:
    # where no order can change a bit, the BLAS arm must give the default's bits: same product, same layout
    for m in (1, 3, 16):
        x, w = small_integer_inputs(m)
        assert np.array_equal(gemv_blas(x, w), gemv_default(x, w)), m


def test_blas_arm_stays_within_rounding_distance_of_the_default() -> None:
    # whether its bits differ is the BLAS build's, the CPU's and OPENBLAS_NUM_THREADS' decision: not asserted
    for m in (1, 4):
        x, w = gemv_inputs(m)
        np.testing.assert_allclose(gemv_blas(x, w), gemv_default(x, w), rtol=1e-4, atol=1e-3)


def test_gemv_default_is_batch_invariant() -> None:
    x, w = gemv_inputs(5)
    batched = gemv_default(x, w)
    assert all(np.array_equal(gemv_default(x[i : i + 1], w)[0], batched[i]) for i in range(5))


@pytest.mark.parametrize("knobs", [Knobs(paged_attn_scalar_fma=True), Knobs(gemv_bf16_dot=True)])
def test_opt_in_arms_change_engine_logits(tiny: Model, knobs: Knobs) -> None:
    ids = np.random.default_rng(0).integers(0, 256, 40).tolist()
    a = Engine(tiny, Knobs()).forward_logits(ids)
    b = Engine(tiny, knobs).forward_logits(ids)
    assert not np.array_equal(a, b)
    assert np.abs(a - b).max() < 0.2


@pytest.mark.parametrize("arm", ["default", "scalar_fma", "bfdot"])
@pytest.mark.parametrize("block_size,hd", [(1, 8), (4, 8), (3, 6), (4, 5)])
def test_rows_together_equal_one_call_per_row(arm: str, block_size: int, hd: int) -> None:
    from vtengine.attention import paged_attention_rows
    from vtengine.numerics import BF16

    rng = np.random.default_rng(8)
    rows, heads, n_kv, blocks = 9, 4, 2, 12
    q = round_bf16(rng.standard_normal((rows, heads, hd)).astype(np.float32))
    k_cache = rng.standard_normal((n_kv, hd, blocks, block_size)).astype(BF16)
    v_cache = rng.standard_normal((n_kv, blocks, block_size, hd)).astype(BF16)
    v_cache[:, :, :, 0] = -0.0  # a column of negative zeros must stay exact
    table = rng.permutation(blocks).astype(np.intp)
    ctxs = np.array([1, 2, 3, 5, 6, 7, 8, 9, 9])[: rows]
    scale = np.float32(0.3)
    together = paged_attention_rows(q, k_cache, v_cache, table, ctxs, scale, arm, "bf16")
    for r in range(rows):
        alone = paged_attention(q[r], k_cache, v_cache, table, int(ctxs[r]), scale, arm, "bf16")
        assert np.array_equal(together[r].view(np.uint32), alone.view(np.uint32)), r


@pytest.mark.parametrize("knobs", [Knobs(paged_attn_scalar_fma=True), Knobs(paged_attn_bfdot=True)])
def test_opt_in_attention_arms_keep_incremental_equal_to_recompute(tiny: Model, knobs: Knobs) -> None:
    from vtengine import tokenizer

    ids = tokenizer.encode("arms")
    engine = Engine(tiny, knobs)
    assert np.array_equal(engine.generate(ids, 4).logits, engine.generate_recompute(ids, 4).logits)


@pytest.mark.parametrize("hd", [5, 6, 34])
def test_fma_and_bfdot_bodies_handle_head_dims_off_their_lane_width(hd: int) -> None:
    from vtengine.attention import attend_bfdot, attend_fma

    rng = np.random.default_rng(9)
    q = round_bf16(rng.standard_normal((4, hd)).astype(np.float32))
    k = round_bf16(rng.standard_normal((2, hd, 7)).astype(np.float32))
    v = round_bf16(rng.standard_normal((2, 7, hd)).astype(np.float32))
    scale = np.float32(0.2)
    want = attend_default(q, k, v, 7, scale)
    for body in (attend_fma, attend_bfdot):
        got = body(q, k, v, 7, scale)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)


@pytest.mark.parametrize("arm", ["default", "scalar_fma", "bfdot"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_rows_together_are_causal_for_non_finite_later_positions(arm: str, bad: float) -> None:
    """A NaN or inf in K and V at a later position leaves the rows that do not attend to it
    bit-identical to the same rows over finite caches (several rows computed at once)."""
    from vtengine.attention import paged_attention_rows
    from vtengine.numerics import BF16

    rng = np.random.default_rng(11)
    rows, heads, n_kv, hd, blocks, block_size = 6, 4, 2, 6, 4, 3
    q = round_bf16(rng.standard_normal((rows, heads, hd)).astype(np.float32))
    k_cache = rng.standard_normal((n_kv, hd, blocks, block_size)).astype(BF16)
    v_cache = rng.standard_normal((n_kv, blocks, block_size, hd)).astype(BF16)
    table = np.arange(blocks, dtype=np.intp)
    ctxs = np.array([1, 2, 4, 6, 8, 9])
    scale = np.float32(0.3)
    clean = paged_attention_rows(q, k_cache, v_cache, table, ctxs, scale, arm, "bf16")
    planted_at = 6  # rows with ctx <= 6 never look at it
    k_bad, v_bad = k_cache.copy(), v_cache.copy()
    k_bad[:, :, planted_at // block_size, planted_at % block_size] = bad
    v_bad[:, planted_at // block_size, planted_at % block_size, :] = bad
    dirty = paged_attention_rows(q, k_bad, v_bad, table, ctxs, scale, arm, "bf16")
    earlier = ctxs <= planted_at
    assert np.array_equal(dirty[earlier].view(np.uint32), clean[earlier].view(np.uint32))
    assert not np.isfinite(dirty[~earlier]).all()  # the rows that see it do see it


@pytest.mark.parametrize("k", [1, 3, 37])
def test_gemv_bf16_dot_takes_an_odd_width(k: int) -> None:
    """Found by the property layer's draws (an odd SwiGLU width): the pair-dot crashed on odd K (and
    returned zeros for K = 1). An odd K's last product is a pair of its own: the same bits as K padded
    with a zero column."""
    from vtengine.gemv import gemv_bf16_dot

    rng = np.random.default_rng(12)
    x = round_bf16(rng.standard_normal((3, k)).astype(np.float32))
    w = round_bf16(rng.standard_normal((k, 5)).astype(np.float32))
    padded = gemv_bf16_dot(np.concatenate([x, np.zeros((3, 1), np.float32)], axis=1),
                           np.concatenate([w, np.zeros((1, 5), np.float32)]))
    got = gemv_bf16_dot(x, w)
    assert np.array_equal(got, padded)
    np.testing.assert_allclose(got, x.astype(np.float64) @ w, rtol=1e-5, atol=1e-5)
