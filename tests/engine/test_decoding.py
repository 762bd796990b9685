"""Greedy generation, teacher-forced scoring and prompt-lookup speculative decoding."""

from __future__ import annotations

import numpy as np
import pytest
from vtengine import tokenizer
from vtengine.engine import Engine, propose_ngram, top2_margin
from vtengine.knobs import Knobs
from vtengine.model import Model


def test_greedy_tokens_are_the_argmax_of_their_logits(tiny: Model, prompt_ids: list[int]) -> None:
    gen = Engine(tiny, Knobs()).generate(prompt_ids, 6)
    assert gen.tokens == gen.logits.argmax(axis=1).tolist()
    assert all(m >= 0 for m in gen.margins)


def test_margin_is_top1_minus_top2() -> None:
    logits = np.array([[1.0, 3.0, 2.5, -1.0]], np.float32)
    assert top2_margin(logits).tolist() == [0.5]


def test_teacher_forced_scoring_matches_greedy_along_its_own_chain(tiny: Model, prompt_ids: list[int]) -> None:
    engine = Engine(tiny, Knobs())
    gen = engine.generate(prompt_ids, 6)
    scores = engine.score(prompt_ids + gen.tokens)
    n = len(prompt_ids)
    assert scores.tokens[n - 1 : n + 5] == gen.tokens
    assert np.array_equal(scores.logits[n - 1 : n + 5], gen.logits)


def test_propose_ngram_returns_what_followed_the_latest_earlier_match() -> None:
    history = [1, 2, 3, 9, 1, 2, 4, 5, 1, 2]
    assert propose_ngram(history, 2, 3) == [4, 5, 1]
    assert propose_ngram(history, 3, 3) == []
    assert propose_ngram([7], 2, 3) == []


@pytest.mark.parametrize("ngram", [1, 2])
def test_speculative_decoding_equals_plain_greedy_and_accepts_drafts(tiny: Model, ngram: int) -> None:
    ids = tokenizer.encode("bench")  # its greedy chain falls into a loop: drafts get accepted
    engine = Engine(tiny, Knobs())
    greedy = engine.generate(ids, 24).tokens
    spec = engine.speculative(ids, 24, ngram=ngram)
    assert spec.tokens == greedy
    assert spec.proposed > 0 and 0 < spec.accepted <= spec.proposed


def test_speculative_decoding_with_rejections_still_equals_greedy(tiny: Model) -> None:
    ids = tokenizer.encode("hello")  # unigram drafts that greedy mostly does not follow
    engine = Engine(tiny, Knobs())
    spec = engine.speculative(ids, 40, ngram=1)
    assert spec.tokens == engine.generate(ids, 40).tokens
    assert 0 < spec.accepted < spec.proposed


def test_the_cache_is_released_after_each_call(tiny: Model, prompt_ids: list[int]) -> None:
    engine = Engine(tiny, Knobs(kv_block_size=4))
    free = len(engine.kv.free)
    engine.generate(prompt_ids, 3)
    engine.speculative(prompt_ids, 5)
    engine.generate_batch([prompt_ids, prompt_ids], 2)
    assert len(engine.kv.free) == free


def test_bad_inputs_are_refused(tiny: Model) -> None:
    engine = Engine(tiny, Knobs())
    with pytest.raises(ValueError, match="token ids"):
        engine.forward_logits([1, 600])
    with pytest.raises(ValueError, match="steps"):
        engine.generate([1], 0)
