"""The property layer (vtengine.draws, vtengine.reference, vtengine.properties): the covering array
covers every pair, draws are reproducible from their seed, the derived tolerance is not vacuous (a
planted engine bug and a planted too-small tolerance both fail), shrinking finds a smaller failing
draw, and the three engine bugs the draws found stay fixed."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
from vtengine import gemv, properties, reference
from vtengine.config import ModelConfig
from vtengine.draws import KNOB_VALUES, describe, draws, pairwise
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import Model, generate_tensors

SMALL = ModelConfig(name="small", vocab_size=3, d_model=2, n_layers=1, n_heads=1, n_kv_heads=1, d_ff=4,
                    max_context=4, seed=1)


def test_covering_array_holds_every_pair_of_knob_values() -> None:
    rows = pairwise(KNOB_VALUES, np.random.default_rng(3))
    for a, b in itertools.combinations(KNOB_VALUES, 2):
        seen = {(row[a], row[b]) for row in rows}
        assert seen == set(itertools.product(KNOB_VALUES[a], KNOB_VALUES[b])), (a, b)
    singles = sum(len(v) for v in KNOB_VALUES.values())
    assert len(rows) < singles  # fewer rows than one knob value at a time would need


def test_draws_are_reproduced_from_their_seed() -> None:
    first, again = draws(5, 6), draws(5, 6)
    assert [describe(d) for d in first] == [describe(d) for d in again]
    assert [d.prompt for d in first] == [d.prompt for d in again]
    assert [describe(d) for d in draws(6, 6)] != [describe(d) for d in first]


def test_every_draw_of_a_seed_passes() -> None:
    result = properties.run(7, 8)
    counters = result["counters"]
    assert counters["draws"] == counters["draws_ok"] >= 8, result["cases"]
    assert counters["pinned_ok"] == counters["pinned"] == 3
    assert 0 < result["metrics"]["worst_error_over_tolerance"] <= 1
    assert result["provenance"]["seed"] == 7 and len(result["provenance"]["draws"]) == counters["draws"]


def _drops_last_term(x: np.ndarray, w_t: np.ndarray) -> np.ndarray:
    return np.add.reduce(x[:, :-1, None] * w_t[None, :-1, :], axis=1)  # a realistic off-by-one


def test_a_planted_gemv_bug_fails_the_reference_check(monkeypatch: pytest.MonkeyPatch) -> None:
    d = draws(7, 1)[0]
    d = replace(d, knobs={**d.knobs, "VT_CPU_GEMV_BLAS": "0", "VT_CPU_GEMV_BF16_DOT": "0"})
    assert properties.check(d, 7)["ok"]
    monkeypatch.setitem(gemv.GEMV_ARMS, "default", _drops_last_term)
    verdict = properties.check(d, 7)
    assert "reference" in verdict["failed"] and verdict["ratio"] > 1


def test_a_tolerance_derived_without_the_bf16_roundings_is_too_small(monkeypatch: pytest.MonkeyPatch) -> None:
    bf16 = [d for d in draws(7, 12) if d.knobs["VT_ACT_DTYPE"] == "bf16" and d.knobs["VT_CPU_GEMV_BLAS"] == "0"]
    assert bf16 and all(properties.check(d, 7)["ok"] for d in bf16[:3])
    monkeypatch.setattr(reference, "U_BF16", 0.0)
    assert any("reference" in properties.check(d, 7)["failed"] for d in bf16[:3])


def test_shrinking_finds_a_smaller_failing_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(gemv.GEMV_ARMS, "default", _drops_last_term)
    d = max(draws(8, 10), key=lambda d: d.config.n_layers * d.config.d_model)
    d = replace(d, knobs={**d.knobs, "VT_CPU_GEMV_BLAS": "0", "VT_CPU_GEMV_BF16_DOT": "0"})
    assert not properties.check(d, 8)["ok"]
    small = properties.shrink(d, 8)
    assert not properties.check(small, 8)["ok"]
    assert small.config.n_layers * small.config.d_model * small.config.d_ff < d.config.n_layers * d.config.d_model * d.config.d_ff


def test_the_default_kv_cache_takes_any_batch() -> None:
    """Found by the draws: a 4-position context with 16-position blocks left one block, so a batch
    of three one-token prompts was refused. The default size now grows; an explicit one still limits."""
    model = Model(SMALL, generate_tensors(SMALL), quantize=True)
    engine = Engine(model, Knobs())
    prompts = [[i % 3] for i in range(5)]
    together = engine.generate_batch(prompts, 3)
    for p, g in zip(prompts, together, strict=True):
        assert np.array_equal(g.logits, Engine(model, Knobs()).generate(p, 3).logits)
    with pytest.raises(MemoryError, match="KV cache full"):
        Engine(model, Knobs(), max_tokens=16).generate_batch(prompts, 1)


def test_speculative_decoding_to_the_context_limit_equals_greedy() -> None:
    """Found by the draws: with greedy ending at the last position, a draft reached position max_context."""
    model = Model(SMALL, generate_tensors(SMALL), quantize=True)
    engine = Engine(model, Knobs())
    for prompt in ([0], [1, 1], [2, 0, 2]):
        steps = SMALL.max_context - len(prompt) + 1
        assert engine.speculative(prompt, steps, ngram=1).tokens == engine.generate(prompt, steps).tokens


def test_reuse_against_fresh_engines_holds_and_catches_a_planted_stateful_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    from vtengine import sequences
    from vtengine.kvcache import PagedKVCache

    assert sequences.reuse(3, 6) == {"reuse_calls": 6, "reuse_equal_to_fresh": 6, "reuse_free_blocks_back": 1}
    original = PagedKVCache.truncate

    def keeps_a_stale_position(self: PagedKVCache, seq, length: int) -> None:  # type: ignore[no-untyped-def]
        original(self, seq, length)
        if length == 0 and self.free:  # a released sequence's block goes back twice: two sequences share it
            self.free.append(self.free[-1])

    monkeypatch.setattr(PagedKVCache, "truncate", keeps_a_stale_position)
    planted = sequences.reuse(3, 6)
    assert planted["reuse_equal_to_fresh"] < 6 or planted["reuse_free_blocks_back"] == 0


def test_knobs_set_between_calls_are_read_again() -> None:
    from vtengine import sequences

    assert sequences.knob_changes(20261202) == {"knob_rows": 6, "knob_rows_read_back": 6, "knob_rows_equal": 6}


def test_a_holder_that_rounds_float16_weights_to_bf16_fails_the_reference_check(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference takes the weights as stored (converted to float64 here), not as the engine's
    Model holds them: a Model that treats every 2-byte dtype as bf16 is caught on float16 draws."""
    from vtengine import model as model_module
    from vtengine.numerics import BF16

    d = replace(draws(7, 1)[0], dtype="f16")
    d = replace(d, knobs={**d.knobs, "VT_CPU_GEMV_BLAS": "0"})
    assert properties.check(d, 7)["ok"]
    original = model_module.Model._hold

    def as_bf16(array, scales, quantize):  # type: ignore[no-untyped-def]
        if array.dtype == np.float16:
            array = array.astype(np.float32).astype(BF16)
        return original(array, scales, quantize)

    monkeypatch.setattr(model_module.Model, "_hold", staticmethod(as_bf16))
    verdict = properties.check(d, 7)
    assert "reference" in verdict["failed"] and verdict["ratio"] > 1


def test_an_explicit_max_tokens_that_rounds_its_blocks_down_fails_a_contract(monkeypatch: pytest.MonkeyPatch) -> None:
    """A class nobody had named (a reviewer's fresh bug, benchmarks/freshbugs/set-e 13): the cache
    sized in whole blocks rounded down, so an engine built with max_tokens N refuses N positions
    whenever the block size does not divide N. The default engine grows its cache and never shows it."""
    from vtengine import kvcache

    d = next(d for d in draws(7, 12) if d.knobs["VT_CPU_GEMV_BLAS"] == "0"
             and (len(d.prompt) + d.steps - 1) % int(d.knobs["VT_KV_BLOCK_SIZE"]))
    assert properties.check(d, 7)["ok"]
    original = kvcache.PagedKVCache.__init__

    def floor_blocks(self, config, block_size, max_tokens, *args, **kwargs):  # type: ignore[no-untyped-def]
        original(self, config, block_size, max_tokens // block_size * block_size, *args, **kwargs)

    monkeypatch.setattr(kvcache.PagedKVCache, "__init__", floor_blocks)
    assert properties.check(d, 7)["failed"] == ["max_tokens_holds_that_many"]


def test_weights_that_ignore_the_configs_seed_fail_a_contract(monkeypatch: pytest.MonkeyPatch) -> None:
    """set-e 14: the generator seeded from the embedded model's seed, not the config's: every
    drawn shape still gets random weights, and the reference check passes (it reads the same
    weights), so only the seed's own contract shows it."""
    from vtengine import model as model_module
    from vtengine.config import VT_TINY

    d = draws(7, 1)[0]
    assert properties.check(d, 7)["ok"]
    original = model_module.generate_tensors
    monkeypatch.setattr(properties, "generate_tensors",
                        lambda config: original(replace(config, seed=VT_TINY.seed)))
    assert "seed_decides_weights" in properties.check(d, 7)["failed"]
