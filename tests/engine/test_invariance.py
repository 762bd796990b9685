"""The default arm's invariances, each against the same baseline logits: thread count, dequant
budget and policy, KV block size, incremental decode vs full recompute, alone vs in a batch. And a
kernel whose order follows the batch, which must break batch invariance (else the invariance tests
could not tell): a constructed double, because whether the real BLAS arm does is the host's decision."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from vtengine import tokenizer
from vtengine.engine import Engine
from vtengine.gemv import GEMV_ARMS, gemv_bf16_dot, gemv_default
from vtengine.knobs import Knobs
from vtengine.model import Model

STEPS = 5


@pytest.fixture(scope="module")
def baseline(tiny: Model, prompt_ids: list[int]) -> np.ndarray:
    return Engine(tiny, Knobs()).generate(prompt_ids, STEPS).logits


def logits_under(tiny: Model, prompt_ids: list[int], **knobs: object) -> np.ndarray:
    engine = Engine(tiny, Knobs(**knobs))  # type: ignore[arg-type]
    try:
        return engine.generate(prompt_ids, STEPS).logits
    finally:
        engine.close()


@pytest.mark.parametrize("threads", [2, 3])
def test_default_arm_is_bit_identical_for_any_thread_count(tiny, prompt_ids, baseline, threads: int) -> None:
    assert np.array_equal(logits_under(tiny, prompt_ids, cpu_threads=threads), baseline)


@pytest.mark.parametrize("budget_mb,policy", [(0, "lru"), (1, "lru"), (4, "pin"), (64, "pin")])
def test_dequant_budget_and_policy_do_not_change_logits(tiny, prompt_ids, baseline, budget_mb, policy) -> None:
    assert np.array_equal(logits_under(tiny, prompt_ids, dequant_cache_mb=budget_mb, dequant_cache_policy=policy), baseline)


@pytest.mark.parametrize("block_size", [1, 3, 7, 64])
def test_kv_block_size_does_not_change_logits(tiny, prompt_ids, baseline, block_size: int) -> None:
    assert np.array_equal(logits_under(tiny, prompt_ids, kv_block_size=block_size), baseline)


def test_incremental_decode_equals_full_recompute(tiny, prompt_ids, baseline) -> None:
    recompute = Engine(tiny, Knobs()).generate_recompute(prompt_ids, STEPS)
    assert np.array_equal(recompute.logits, baseline)


def test_a_sequence_decodes_the_same_alone_and_inside_a_batch(tiny, prompt_ids, baseline) -> None:
    others = [tokenizer.encode("x"), tokenizer.encode("a much longer neighbouring prompt")]
    batch = Engine(tiny, Knobs()).generate_batch([others[0], prompt_ids, others[1]], STEPS)
    assert np.array_equal(batch[1].logits, baseline)


def test_forward_logits_last_row_equals_the_first_generated_step(tiny, prompt_ids, baseline) -> None:
    assert np.array_equal(Engine(tiny, Knobs()).forward_logits(prompt_ids)[-1], baseline[0])


def batch_dependent_gemv(x: np.ndarray, w_t: np.ndarray) -> np.ndarray:
    """A double of a BLAS that blocks batches differently from single rows: adjacent products paired
    (pair-dot) when M > 1, sequential when M == 1; both orders are IEEE-determined, so the batch
    changes the bits on any machine (test_arms.py shows the two orders apart)."""
    return (gemv_bf16_dot if x.shape[0] > 1 else gemv_default)(x, w_t)


def test_a_batch_dependent_gemv_breaks_batch_invariance(tiny, prompt_ids, monkeypatch) -> None:
    # the batch-invariance comparison above can tell: a kernel whose order follows the batch fails it
    monkeypatch.setitem(GEMV_ARMS, "blas", batch_dependent_gemv)
    engine = Engine(tiny, Knobs(gemv_blas=True))
    alone = engine.generate(prompt_ids, STEPS).logits
    batched = engine.generate_batch([tokenizer.encode("x"), prompt_ids], STEPS)[1].logits
    assert not np.array_equal(alone, batched)


def test_budget_changes_counters_but_not_logits(tiny, prompt_ids) -> None:
    roomy, tight = Engine(tiny, Knobs(dequant_cache_mb=64)), Engine(tiny, Knobs(dequant_cache_mb=1))
    a, b = roomy.generate(prompt_ids, STEPS).logits, tight.generate(prompt_ids, STEPS).logits
    assert np.array_equal(a, b)
    ca, cb = roomy.cache.counters(), tight.cache.counters()
    assert ca.hits + ca.misses == cb.hits + cb.misses  # same accesses ...
    matrices = 2 + 4 * tiny.config.n_layers  # embed, lm_head, and qkv, o, gate_up, down per layer
    assert ca.misses == matrices and ca.evictions == 0
    assert cb.hits < ca.hits and cb.evictions > 0  # ... different fate


def test_blas_arm_reads_weights_through_the_dequant_cache_as_the_default_does(tiny, prompt_ids) -> None:
    for budget_mb in (64, 1):
        default = Engine(tiny, Knobs(dequant_cache_mb=budget_mb))
        blas = Engine(tiny, Knobs(dequant_cache_mb=budget_mb, gemv_blas=True))
        want = default.generate(prompt_ids, STEPS).logits
        got = blas.generate(prompt_ids, STEPS).logits
        assert blas.cache.counters() == default.cache.counters()  # same accesses, same fate
        # the BLAS arm's bits are the host's (build, CPU, threads, even buffer alignment): only the values
        # of the first step (later steps may follow another token) must stay close to the default's
        np.testing.assert_allclose(got[0], want[0], rtol=0, atol=0.2)


def test_f32_activation_path_differs_from_bf16(tiny, prompt_ids) -> None:
    f32 = Engine(tiny, Knobs(act_dtype="f32")).forward_logits(prompt_ids)
    baseline = Engine(tiny, Knobs()).forward_logits(prompt_ids)
    assert not np.array_equal(f32, baseline)
    assert np.abs(f32 - baseline).max() < 0.5  # same model, different rounding


def test_the_thread_pool_really_runs_the_work(tiny, prompt_ids, monkeypatch) -> None:
    # which threads ran GEMV column chunks, not how many the pool spawned (that is the scheduler's call)
    ran_on: set[str] = set()

    def recording_default(x: np.ndarray, w_t: np.ndarray) -> np.ndarray:
        ran_on.add(threading.current_thread().name)
        return gemv_default(x, w_t)

    monkeypatch.setitem(GEMV_ARMS, "default", recording_default)
    engine = Engine(tiny, Knobs(cpu_threads=3))
    try:
        logits = engine.generate(prompt_ids, 2).logits
    finally:
        engine.close()
    assert engine.pool is not None
    assert ran_on and threading.main_thread().name not in ran_on  # every chunk ran on a pool worker
    assert np.array_equal(logits, Engine(tiny, Knobs()).generate(prompt_ids, 2).logits)
