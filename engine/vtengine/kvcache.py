"""Paged KV cache (vLLM-style): fixed-size blocks in one pool per layer, a block table per sequence,
and a free list shuffled with a fixed seed so consecutive positions really live in scattered blocks.
Numerics do not depend on the block size or on which blocks a sequence gets."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vtengine.config import ModelConfig


@dataclass
class Sequence:
    seq_id: int
    blocks: list[int] = field(default_factory=list)
    length: int = 0  # positions written

    def table(self) -> np.ndarray:
        return np.asarray(self.blocks, dtype=np.intp)


class PagedKVCache:
    """K pools [n_kv, head_dim, num_blocks, block_size]; V pools [n_kv, num_blocks, block_size, head_dim]."""

    def __init__(
        self,
        config: ModelConfig,
        block_size: int,
        max_tokens: int,
        dtype: np.dtype,
        shuffle_seed: int = 0,
        grow: bool = False,
    ) -> None:
        self.block_size = block_size
        self.grow = grow  # when full, double the pools instead of refusing (the engine's default size)
        self._rng = np.random.Generator(np.random.PCG64(shuffle_seed))
        self.num_blocks = -(-max_tokens // block_size)
        n_kv, hd = config.n_kv_heads, config.head_dim
        self.k = [np.zeros((n_kv, hd, self.num_blocks, block_size), dtype) for _ in range(config.n_layers)]
        self.v = [np.zeros((n_kv, self.num_blocks, block_size, hd), dtype) for _ in range(config.n_layers)]
        self.free: list[int] = [int(b) for b in self._rng.permutation(self.num_blocks)]
        self._next_id = 0

    def new_sequence(self) -> Sequence:
        self._next_id += 1
        return Sequence(self._next_id)

    def reserve(self, seq: Sequence, length: int) -> None:
        """Make room for positions [0, length) of ``seq``."""
        needed = -(-length // self.block_size)
        while len(seq.blocks) < needed:
            if not self.free and self.grow:
                self._double()
            if not self.free:
                raise MemoryError(
                    f"KV cache full ({self.num_blocks} blocks of {self.block_size}): free a sequence "
                    "or build the engine with a larger max_tokens"
                )
            seq.blocks.append(self.free.pop())

    def _double(self) -> None:
        """Twice the blocks: the old ones keep their contents and ids, the new ones join the free
        list in shuffled order."""
        old = self.num_blocks
        self.k = [np.concatenate([k, np.zeros_like(k)], axis=2) for k in self.k]
        self.v = [np.concatenate([v, np.zeros_like(v)], axis=1) for v in self.v]
        self.num_blocks = 2 * old
        self.free += [old + int(b) for b in self._rng.permutation(old)]

    def truncate(self, seq: Sequence, length: int) -> None:
        """Forget positions >= length (rejected speculative tokens); return whole unused blocks."""
        seq.length = min(seq.length, length)
        keep = -(-seq.length // self.block_size)
        while len(seq.blocks) > keep:
            self.free.append(seq.blocks.pop())

    def release(self, seq: Sequence) -> None:
        self.truncate(seq, 0)

    def write(self, layer: int, table: np.ndarray, positions: np.ndarray, k: np.ndarray, v: np.ndarray) -> None:
        """Store k, v [T, n_kv, hd] at ``positions`` of the sequence with block ``table`` (reserved)."""
        blocks = table[positions // self.block_size]
        offsets = positions % self.block_size
        self.k[layer][:, :, blocks, offsets] = k.transpose(1, 2, 0).astype(self.k[layer].dtype)
        self.v[layer][:, blocks, offsets, :] = k_to_v_layout(v).astype(self.v[layer].dtype)


def k_to_v_layout(v: np.ndarray) -> np.ndarray:
    """[T, n_kv, hd] -> [n_kv, T, hd] for advanced-index assignment into the V pool."""
    return v.transpose(1, 0, 2)
