"""The dequant cache: dequantized weight matrices kept under a byte budget, with hit/miss/eviction
counters and an eviction policy. The values are the same whether they come from the cache or from a
fresh dequantization, so the budget and policy change counters and speed, never numerics."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

POLICIES = ("lru", "pin")


@dataclass(frozen=True)
class CacheCounters:
    hits: int
    misses: int
    evictions: int
    resident_bytes: int


class DequantCache:
    """``lru``: least recently used entries are evicted to fit; below the cyclic working set every
    access misses (LRU thrash). ``pin``: entries are kept in first-come order until the budget is
    full, later ones are dequantized on every access and never stored (nothing is evicted)."""

    def __init__(self, budget_bytes: int, policy: str = "lru") -> None:
        if policy not in POLICIES:
            raise ValueError(f"unknown dequant cache policy {policy!r}: use one of {POLICIES}")
        self.budget_bytes = budget_bytes
        self.policy = policy
        self.entries: OrderedDict[str, np.ndarray] = OrderedDict()
        self.resident_bytes = 0
        self.hits = 0
        self.misses = 0
        self.evictions = 0

    def get(self, key: str, load: Callable[[], np.ndarray]) -> np.ndarray:
        entry = self.entries.get(key)
        if entry is not None:
            self.hits += 1
            if self.policy == "lru":
                self.entries.move_to_end(key)
            return entry
        self.misses += 1
        value = load()
        self._admit(key, value)
        return value

    def _admit(self, key: str, value: np.ndarray) -> None:
        size = value.nbytes
        if size > self.budget_bytes:
            return  # can never fit: serve it uncached
        if self.policy == "pin":
            if self.resident_bytes + size <= self.budget_bytes:
                self.entries[key] = value
                self.resident_bytes += size
            return
        while self.resident_bytes + size > self.budget_bytes:
            _, old = self.entries.popitem(last=False)
            self.resident_bytes -= old.nbytes
            self.evictions += 1
        self.entries[key] = value
        self.resident_bytes += size

    def counters(self) -> CacheCounters:
        return CacheCounters(self.hits, self.misses, self.evictions, self.resident_bytes)
