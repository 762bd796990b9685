"""The dequant cache: LRU thrashes to zero hits below the cyclic working set, pin keeps what fit
first, counters count, and the served values never depend on the cache."""

from __future__ import annotations

import numpy as np
import pytest
from vtengine.dequant import DequantCache
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import Model

ENTRY = np.zeros(256, np.float32)  # 1 KiB each


def cycle(cache: DequantCache, keys: list[str], rounds: int) -> None:
    for _ in range(rounds):
        for key in keys:
            cache.get(key, lambda: ENTRY.copy())


def test_lru_below_the_cyclic_working_set_never_hits() -> None:
    cache = DequantCache(budget_bytes=3 * 1024, policy="lru")
    cycle(cache, ["a", "b", "c", "d"], rounds=5)
    c = cache.counters()
    assert (c.hits, c.misses) == (0, 20)
    assert c.evictions == 17


def test_lru_with_room_for_the_working_set_hits_after_the_first_round() -> None:
    cache = DequantCache(budget_bytes=4 * 1024, policy="lru")
    cycle(cache, ["a", "b", "c", "d"], rounds=5)
    c = cache.counters()
    assert (c.hits, c.misses, c.evictions) == (16, 4, 0)


def test_pin_keeps_the_first_entries_that_fit_and_never_evicts() -> None:
    cache = DequantCache(budget_bytes=3 * 1024, policy="pin")
    cycle(cache, ["a", "b", "c", "d"], rounds=5)
    c = cache.counters()
    assert (c.hits, c.misses, c.evictions) == (12, 8, 0)
    assert list(cache.entries) == ["a", "b", "c"]


def test_zero_budget_caches_nothing() -> None:
    cache = DequantCache(budget_bytes=0, policy="lru")
    cycle(cache, ["a"], rounds=3)
    assert cache.counters().hits == 0 and cache.counters().resident_bytes == 0


def test_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="lru"):
        DequantCache(1024, policy="fifo")


def test_engine_counters_show_lru_thrash_and_pin_hits(tiny: Model, prompt_ids: list[int]) -> None:
    # the 18 matrices of vt-tiny take ~13 MB; 8 MB is below the working set
    lru = Engine(tiny, Knobs(dequant_cache_mb=8, dequant_cache_policy="lru"))
    pin = Engine(tiny, Knobs(dequant_cache_mb=8, dequant_cache_policy="pin"))
    a, b = lru.generate(prompt_ids, 3), pin.generate(prompt_ids, 3)
    assert np.array_equal(a.logits, b.logits)
    assert lru.cache.counters().hits == 0
    assert pin.cache.counters().hits > 0 and pin.cache.counters().evictions == 0
