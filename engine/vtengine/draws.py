"""Seeded draws for the property layer (:mod:`vtengine.properties`): model configurations the engine
accepts, prompts, and knob combinations as a pairwise covering array over every documented knob
value (each pair of values of each two knobs appears in some row; not one knob at a time).

Everything comes from one ``numpy.random.Generator`` seeded with a recorded integer, so a draw is
reproduced from (seed, index) alone; :func:`describe` is what the probe records as provenance.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import numpy as np

from vtengine.config import ModelConfig
from vtengine.knobs import Knobs

# every value docs/ENVIRONMENT.md documents for an engine numerics knob (the block size and budget
# at their edges and default; VT_CACHE_DIR decides no number and is left out)
KNOB_VALUES: dict[str, tuple[str, ...]] = {
    "VT_DEQUANT_CACHE_MB": ("0", "1", "64"),
    "VT_DEQUANT_CACHE_POLICY": ("lru", "pin"),
    "VT_ACT_DTYPE": ("bf16", "f32"),
    "VT_KV_BLOCK_SIZE": ("1", "3", "16"),
    "VT_CPU_THREADS": ("1", "2"),
    "VT_CPU_PAGED_ATTN_SCALAR_FMA": ("0", "1"),
    "VT_CPU_PAGED_ATTN_BFDOT": ("0", "1"),
    "VT_CPU_GEMV_BF16_DOT": ("0", "1"),
    "VT_CPU_GEMV_BLAS": ("0", "1"),
    "VT_PROFILE": ("0", "1"),
}

DTYPES = ("fp8", "bf16", "f32", "f16")  # checkpoint weight dtypes


def pairwise(values: dict[str, tuple[str, ...]], rng: np.random.Generator, candidates: int = 40) -> list[dict[str, str]]:
    """A small covering array of strength 2: greedy, each new row the best of ``candidates`` random
    rows at covering still-uncovered pairs (ties: the first drawn). Deterministic for a seeded rng."""
    names = list(values)
    uncovered = {((a, va), (b, vb)) for a, b in itertools.combinations(names, 2)
                 for va in values[a] for vb in values[b]}
    rows: list[dict[str, str]] = []
    while uncovered:
        best, best_gain = None, -1
        for _ in range(candidates):
            row = {n: values[n][int(rng.integers(len(values[n])))] for n in names}
            # seed the row with one uncovered pair so every row makes progress
            (a, va), (b, vb) = sorted(uncovered)[int(rng.integers(len(uncovered)))]
            row[a], row[b] = va, vb
            gain = sum(((x, row[x]), (y, row[y])) in uncovered for x, y in itertools.combinations(names, 2))
            if gain > best_gain:
                best, best_gain = row, gain
        assert best is not None
        uncovered -= {((x, best[x]), (y, best[y])) for x, y in itertools.combinations(names, 2)}
        rows.append(best)
    return rows


def knobs_of(row: dict[str, str]) -> Knobs:
    """A knob row (VT_* strings) as resolved :class:`Knobs` (the cache folder left as it is)."""
    return Knobs(
        dequant_cache_mb=int(row["VT_DEQUANT_CACHE_MB"]),
        dequant_cache_policy=row["VT_DEQUANT_CACHE_POLICY"],
        act_dtype=row["VT_ACT_DTYPE"],
        kv_block_size=int(row["VT_KV_BLOCK_SIZE"]),
        cpu_threads=int(row["VT_CPU_THREADS"]),
        paged_attn_scalar_fma=row["VT_CPU_PAGED_ATTN_SCALAR_FMA"] == "1",
        paged_attn_bfdot=row["VT_CPU_PAGED_ATTN_BFDOT"] == "1",
        gemv_bf16_dot=row["VT_CPU_GEMV_BF16_DOT"] == "1",
        gemv_blas=row["VT_CPU_GEMV_BLAS"] == "1",
        profile=row["VT_PROFILE"] == "1",
    )


@dataclass(frozen=True)
class Draw:
    index: int
    config: ModelConfig
    dtype: str  # checkpoint weight dtype: fp8 | bf16 | f32 | f16
    knobs: dict[str, str]
    prompt: list[int]
    steps: int  # greedy steps; prompt + steps - 1 <= max_context
    others: tuple[list[int], ...]  # prompts batched beside ``prompt``


def draw_config(rng: np.random.Generator) -> ModelConfig:
    """Shapes the engine accepts: GQA groups 1-3 of 1-3 KV heads, even head dims 2-12 (not only
    powers of two), any SwiGLU width (odd ones too), 1-3 layers, vocab 2-300, short or longer contexts."""
    n_kv, group = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    head_dim = 2 * int(rng.integers(1, 7))
    return ModelConfig(
        name="drawn",
        vocab_size=int(rng.integers(2, 301)),
        d_model=n_kv * group * head_dim,
        n_layers=int(rng.integers(1, 4)),
        n_heads=n_kv * group,
        n_kv_heads=n_kv,
        d_ff=int(rng.integers(1, 65)),
        max_context=int(rng.choice([4, 17, 48, 160])),
        rope_theta=float(rng.choice([100.0, 10000.0, 500000.0])),
        tie_word_embeddings=bool(rng.integers(2)),
        seed=int(rng.integers(2**31)),
    )


def draw(index: int, rng: np.random.Generator, knob_row: dict[str, str]) -> Draw:
    config = draw_config(rng)
    ctx = config.max_context
    length = ctx if rng.random() < 0.25 else int(rng.integers(1, min(ctx, 40) + 1))  # a quarter fill the context
    prompt = rng.integers(0, config.vocab_size, length).tolist()
    steps = int(rng.integers(1, min(4, ctx - length + 1) + 1))
    others = tuple(rng.integers(0, config.vocab_size, int(rng.integers(1, min(ctx, 12) + 1))).tolist()
                   for _ in range(2))
    return Draw(index, config, str(rng.choice(DTYPES)), knob_row, prompt, steps, others)


def draws(seed: int, count: int) -> list[Draw]:
    """``count`` draws (at least one per covering-array row), the knob rows cycled through."""
    rng = np.random.Generator(np.random.PCG64(seed))
    rows = pairwise(KNOB_VALUES, rng)
    return [draw(i, rng, rows[i % len(rows)]) for i in range(max(count, len(rows)))]


def describe(d: Draw) -> dict[str, object]:
    """A draw as JSON-able provenance (the prompt's length, not its ids; they follow from the seed)."""
    c = d.config
    return {"index": d.index, "layers": c.n_layers, "heads": c.n_heads, "kv_heads": c.n_kv_heads,
            "head_dim": c.head_dim, "d_ff": c.d_ff, "vocab": c.vocab_size, "max_context": c.max_context,
            "rope_theta": c.rope_theta, "tied": c.tie_word_embeddings, "weights_seed": c.seed,
            "dtype": d.dtype, "prompt_length": len(d.prompt), "steps": d.steps, "knobs": d.knobs}


def shrink_config(config: ModelConfig) -> list[ModelConfig]:
    """Smaller neighbours of a configuration (one dimension reduced), for shrinking a counterexample."""
    out = []
    if config.n_layers > 1:
        out.append(replace(config, n_layers=config.n_layers - 1))
    if config.d_ff > 1:
        out.append(replace(config, d_ff=config.d_ff // 2))
    if config.vocab_size > 2:
        out.append(replace(config, vocab_size=max(2, config.vocab_size // 2)))
    hd = config.head_dim
    if hd > 2:
        out.append(replace(config, d_model=config.n_heads * (hd - 2)))
    return out
