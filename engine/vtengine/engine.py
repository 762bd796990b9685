"""The forward pass and the decoding loops: prefill, incremental decode over the paged KV cache,
full recompute, batched decode, greedy generation, teacher-forced scoring, and n-gram prompt-lookup
speculative decoding.

One forward pass, per block, top to bottom: RMSNorm -> fused q/k/v linear -> RoPE -> write K/V into
the paged cache -> paged attention (per query row) -> o linear -> residual; RMSNorm -> fused gate/up
linear -> SiLU(gate) * up -> down linear -> residual. Then the final norm and the LM head.

In the bf16 engine (``VT_ACT_DTYPE=bf16``) values are rounded to bf16 (nearest-even) after every
linear, norm, RoPE, attention output, SwiGLU product and residual add; every sum accumulates in
float32. ``VT_ACT_DTYPE=f32`` skips those roundings (the reference path). LM-head logits stay float32.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from vtengine.arms import select_arms
from vtengine.attention import paged_attention_rows
from vtengine.dequant import DequantCache
from vtengine.gemv import Linear
from vtengine.knobs import Knobs
from vtengine.kvcache import PagedKVCache, Sequence
from vtengine.model import Model
from vtengine.numerics import BF16, cos_sin_f32, identity, pow_f64, round_bf16, silu_f32, sum_sequential
from vtengine.profiler import Profiler, clock


@dataclass(frozen=True)
class Generation:
    tokens: list[int]
    margins: list[float]  # top-1 minus top-2 logit at each step
    logits: np.ndarray  # [steps, vocab] float32, row i chose tokens[i]


@dataclass(frozen=True)
class Scores:
    tokens: list[int]  # argmax at each position (the prediction for the next position)
    margins: list[float]
    logits: np.ndarray


@dataclass(frozen=True)
class Speculation:
    tokens: list[int]
    proposed: int
    accepted: int


def top2_margin(logits: np.ndarray) -> np.ndarray:
    """top-1 minus top-2 logit per row (float64 of the float32 logits)."""
    top = np.partition(logits, -2, axis=-1)[..., -2:].astype(np.float64)
    return top[..., 1] - top[..., 0]


class Engine:
    """Runs a :class:`Model` under resolved :class:`Knobs` (arms, threads, cache budget, block size)."""

    def __init__(self, model: Model, knobs: Knobs | None = None, max_tokens: int | None = None) -> None:
        self.model = model
        self.config = cfg = model.config
        self.knobs = knobs = knobs if knobs is not None else Knobs.from_env()
        self.arms = select_arms(knobs)
        self.bf16 = knobs.act_dtype == "bf16"
        self.round = round_bf16 if self.bf16 else identity
        self.pool = ThreadPoolExecutor(knobs.cpu_threads) if knobs.cpu_threads > 1 else None
        self.linear = Linear(self.arms["gemv"], self.pool, knobs.cpu_threads)
        self.cache = DequantCache(knobs.dequant_cache_mb * 1024 * 1024, knobs.dequant_cache_policy)
        self.kv = PagedKVCache(
            cfg,
            knobs.kv_block_size,
            max_tokens if max_tokens is not None else min(4 * cfg.max_context, 16384),
            BF16 if self.bf16 else np.dtype(np.float32),
            grow=max_tokens is None,  # the default size grows with the batch; an explicit one is a limit
        )
        self.prof: Profiler | None = Profiler() if knobs.profile else None
        self.head_dim = hd = cfg.head_dim
        self.scale = np.float32(1.0 / math.sqrt(hd))
        # rope tables: angles and cos/sin in float64, rounded once to float32 (portable bits)
        inv_freq = 1.0 / pow_f64(cfg.rope_theta, np.arange(0, hd, 2, dtype=np.float64) / hd)
        angles = np.arange(cfg.max_context, dtype=np.float64)[:, None] * inv_freq[None, :]
        cos, sin = cos_sin_f32(angles)
        self.rope_cos = np.concatenate([cos, cos], axis=1)
        self.rope_sin = np.concatenate([-sin, sin], axis=1)
        self.norm_in = [model.vector(f"model.layers.{i}.input_layernorm.weight") for i in range(cfg.n_layers)]
        self.norm_post = [
            model.vector(f"model.layers.{i}.post_attention_layernorm.weight") for i in range(cfg.n_layers)
        ]
        self.norm_final = model.vector("model.norm.weight")
        self.eps = np.float32(cfg.rms_norm_eps)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()

    # -- building blocks ------------------------------------------------------------------------

    def weight(self, key: str) -> np.ndarray:
        prof = self.prof
        t0 = clock() if prof else 0.0
        w = self.cache.get(key, lambda: self.model.matrix_t(key))
        if prof:
            prof.add("dequant", t0)
        return w

    def _linear(self, x: np.ndarray, key: str) -> np.ndarray:
        w = self.weight(key)
        prof = self.prof
        t0 = clock() if prof else 0.0
        y = self.round(self.linear(x, w))  # round to bf16 after each linear
        if prof:
            prof.add("linear", t0)
        return y

    def _rmsnorm(self, x: np.ndarray, w: np.ndarray) -> np.ndarray:
        prof = self.prof
        t0 = clock() if prof else 0.0
        # mean of squares: accumulate in float32, sequential along d_model; rsqrt in float64, round once
        if x.shape[0] == 1:  # one row: the same sequential sum and IEEE float64 ops on scalars
            ms = np.add.accumulate(x[0] * x[0])[-1] / np.float32(x.shape[1])  # squares are >= +0: no -0
            inv: np.float32 | np.ndarray = np.float32(1.0 / math.sqrt(float(ms) + float(self.eps)))
        else:
            ms = sum_sequential(x * x, axis=-1) / np.float32(x.shape[-1])
            inv = (1.0 / np.sqrt(ms.astype(np.float64) + float(self.eps))).astype(np.float32)[:, None]
        y = self.round((x * inv) * w)
        if prof:
            prof.add("norms", t0)
        return y

    def _rope(self, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Hugging Face convention: rotate the two halves of each head: [x1, x2] ->
        [x1*cos - x2*sin, x2*cos + x1*sin] (float32 products and sums), then round."""
        prof = self.prof
        t0 = clock() if prof else 0.0
        half = self.head_dim // 2
        cos = self.rope_cos.take(positions, axis=0)[:, None, :]  # [R, 1, hd] = [cos, cos]
        sin = self.rope_sin.take(positions, axis=0)[:, None, :]  # [R, 1, hd] = [-sin, sin] (negation is exact)
        rotated = np.concatenate([x[..., half:], x[..., :half]], axis=-1)
        y = self.round(x * cos + rotated * sin)
        if prof:
            prof.add("rope", t0)
        return y

    def _attention(self, layer: int, q: np.ndarray, groups: list[tuple[np.ndarray, int, np.ndarray]]) -> np.ndarray:
        """q [R, H, hd]; groups[i] = (block table, first row, positions) of one sequence's rows.
        Rows of a sequence attend together in chunks (bounded memory); row r covers positions
        [0, position_r]. With a pool, KV heads are split across threads."""
        prof = self.prof
        t0 = clock() if prof else 0.0
        cfg = self.config
        arm = self.arms["paged_attention"]
        q_dtype = "bf16" if self.bf16 else "f32"
        k_cache, v_cache = self.kv.k[layer], self.kv.v[layer]
        heads, hd = cfg.n_heads, self.head_dim
        out = np.empty((q.shape[0], heads, hd), np.float32)
        group = heads // cfg.n_kv_heads
        for table, first, positions in groups:
            step = max(1, (1 << 21) // (heads * hd * (int(positions.max()) + 1)))
            for c in range(0, len(positions), step):
                rows = slice(first + c, first + min(c + step, len(positions)))
                ctxs = positions[c : c + step] + 1
                if self.pool is None or cfg.n_kv_heads == 1:
                    out[rows] = paged_attention_rows(q[rows], k_cache, v_cache, table, ctxs, self.scale, arm, q_dtype)
                    continue
                futures = [
                    self.pool.submit(
                        paged_attention_rows,
                        q[rows, kv * group : (kv + 1) * group],
                        k_cache[kv : kv + 1],
                        v_cache[kv : kv + 1],
                        table,
                        ctxs,
                        self.scale,
                        arm,
                        q_dtype,
                    )
                    for kv in range(cfg.n_kv_heads)
                ]
                for kv, future in enumerate(futures):
                    out[rows, kv * group : (kv + 1) * group] = future.result()
        y = self.round(out.reshape(q.shape[0], -1))  # round the attention output to bf16
        if prof:
            prof.add("attention", t0)
        return y

    # -- the forward pass -------------------------------------------------------------------------

    def forward(
        self, seqs: list[Sequence], new_tokens: list[list[int]], all_logits: bool = False
    ) -> list[np.ndarray]:
        """Append ``new_tokens[i]`` to ``seqs[i]`` (prefill, decode, or verification: the same code)
        and return each sequence's logits [n_new or 1, vocab] float32 (all new positions or the last)."""
        cfg, prof = self.config, self.prof
        counts = [len(t) for t in new_tokens]
        ids = np.fromiter((t for toks in new_tokens for t in toks), dtype=np.intp)
        if ids.size == 0 or min(counts) == 0:
            raise ValueError("forward needs at least one new token for every sequence")
        if ids.min() < 0 or ids.max() >= cfg.vocab_size:
            raise ValueError(f"token ids must lie in [0, {cfg.vocab_size})")
        positions = np.concatenate([np.arange(s.length, s.length + n) for s, n in zip(seqs, counts, strict=False)])
        if positions.max() >= cfg.max_context:
            raise ValueError(f"sequence longer than the model's context {cfg.max_context}")
        groups: list[tuple[np.ndarray, int, np.ndarray]] = []
        first = 0
        for s, n in zip(seqs, counts, strict=True):
            self.kv.reserve(s, s.length + n)
            groups.append((s.table(), first, positions[first : first + n]))
            first += n
        if prof:
            prof.tokens[prof.phase] += int(ids.size)

        t0 = clock() if prof else 0.0
        x = self.weight("embed").take(ids, axis=0)  # embedding rows (already bf16 values for vt-tiny)
        x = self.round(x)
        if prof:
            prof.add("embed", t0)
        H, KV, hd = cfg.n_heads, cfg.n_kv_heads, self.head_dim
        R = ids.size
        for layer in range(cfg.n_layers):
            h = self._rmsnorm(x, self.norm_in[layer])
            qkv = self._linear(h, f"layers.{layer}.qkv")
            qk = self._rope(qkv[:, : (H + KV) * hd].reshape(R, H + KV, hd), positions)  # q and k heads
            q, k = qk[:, :H], qk[:, H:]
            v = qkv[:, (H + KV) * hd :].reshape(R, KV, hd)
            t0 = clock() if prof else 0.0
            for table, first, pos in groups:
                n = len(pos)
                self.kv.write(layer, table, pos, k[first : first + n], v[first : first + n])
            if prof:
                prof.add("kv_write", t0)
            attn = self._attention(layer, q, groups)
            x = self.round(x + self._linear(attn, f"layers.{layer}.o"))  # residual, rounded
            h = self._rmsnorm(x, self.norm_post[layer])
            gate_up = self._linear(h, f"layers.{layer}.gate_up")
            t0 = clock() if prof else 0.0
            # SwiGLU: silu in float64 rounded to float32, then bf16; times up, then bf16
            act = self.round(self.round(silu_f32(gate_up[:, : cfg.d_ff])) * gate_up[:, cfg.d_ff :])
            if prof:
                prof.add("mlp_act", t0)
            x = self.round(x + self._linear(act, f"layers.{layer}.down"))
        for s, n in zip(seqs, counts, strict=False):
            s.length += n

        if all_logits:
            picks = np.arange(R)
        else:
            picks = np.cumsum(counts) - 1
        h = self._rmsnorm(x[picks], self.norm_final)
        w = self.weight("lm_head")
        t0 = clock() if prof else 0.0
        logits = self.linear(h, w)  # float32 logits, not rounded
        if prof:
            prof.add("lm_head", t0)
        out, start = [], 0
        for n in counts:
            take = n if all_logits else 1
            out.append(logits[start : start + take])
            start += take
        return out

    def _phase(self, phase: str) -> None:
        if self.prof:
            self.prof.phase = phase

    # -- decoding ---------------------------------------------------------------------------------

    def forward_logits(self, token_ids: list[int]) -> np.ndarray:
        """Full recompute: logits [T, vocab] float32 for every position of ``token_ids`` from an
        empty cache (the sequence is released afterwards)."""
        seq = self.kv.new_sequence()
        try:
            self._phase("prefill")
            return self.forward([seq], [list(token_ids)], all_logits=True)[0]
        finally:
            self.kv.release(seq)

    def generate(self, prompt: list[int], steps: int) -> Generation:
        """Greedy: prefill the prompt once, then one incremental decode step per token."""
        return self.generate_batch([prompt], steps)[0]

    def generate_batch(self, prompts: list[list[int]], steps: int) -> list[Generation]:
        """Greedy decode of several sequences together: one batched prefill, then each decode step
        runs all sequences' rows through the same linears (per-row arithmetic is unchanged)."""
        if steps < 1:
            raise ValueError("steps must be >= 1")
        if any(len(p) == 0 for p in prompts):
            raise ValueError("every prompt needs at least one token")
        for p in prompts:
            self._check_length(len(p) + steps - 1)
        seqs = [self.kv.new_sequence() for _ in prompts]
        rows: list[list[np.ndarray]] = [[] for _ in prompts]
        try:
            self._phase("prefill")
            logits = self.forward(seqs, [list(p) for p in prompts])
            self._phase("decode")
            for step in range(steps):
                nexts = []
                for i, lg in enumerate(logits):
                    rows[i].append(lg[-1])
                    nexts.append([int(np.argmax(lg[-1]))])
                if step + 1 < steps:
                    logits = self.forward(seqs, nexts)
        finally:
            for s in seqs:
                self.kv.release(s)
        out = []
        for r in rows:
            stacked = np.stack(r)
            out.append(Generation([int(t) for t in stacked.argmax(axis=1)], top2_margin(stacked).tolist(), stacked))
        return out

    def _check_length(self, length: int) -> None:
        if length > self.config.max_context:
            raise ValueError(
                f"prompt + generated tokens = {length} positions, longer than the model's context "
                f"{self.config.max_context}"
            )

    def generate_recompute(self, prompt: list[int], steps: int) -> Generation:
        """Greedy by full recompute: every step runs the whole sequence from an empty cache."""
        self._check_length(len(prompt) + steps - 1)
        ids = list(prompt)
        picked = []
        for _ in range(steps):
            row = self.forward_logits(ids)[-1]
            picked.append(row)
            ids.append(int(np.argmax(row)))
        stacked = np.stack(picked)
        return Generation(ids[len(prompt) :], top2_margin(stacked).tolist(), stacked)

    def score(self, token_ids: list[int]) -> Scores:
        """Teacher-forced: the argmax and top-1/top-2 margin at every position of ``token_ids``."""
        logits = self.forward_logits(token_ids)
        return Scores([int(t) for t in logits.argmax(axis=1)], top2_margin(logits).tolist(), logits)

    def speculative(self, prompt: list[int], steps: int, ngram: int = 2, max_draft: int = 4) -> Speculation:
        """n-gram prompt-lookup speculative decoding: propose the tokens that followed the latest
        earlier occurrence of the last ``ngram`` tokens, verify them in one batched forward, keep the
        longest prefix greedy agrees with plus greedy's own next token. Equals plain greedy."""
        if ngram < 1 or max_draft < 1:
            raise ValueError("ngram and max_draft must be >= 1")
        self._check_length(len(prompt) + steps - 1)
        seq = self.kv.new_sequence()
        proposed = accepted = 0
        try:
            self._phase("prefill")
            out = [int(np.argmax(self.forward([seq], [list(prompt)])[0][-1]))]
            self._phase("decode")
            while len(out) < steps:
                # out[-1] goes in at position seq.length and each draft token after it: all within the context
                room = self.config.max_context - seq.length - 1
                draft = propose_ngram(list(prompt) + out, ngram, min(max_draft, steps - len(out), room))
                proposed += len(draft)
                base = seq.length
                logits = self.forward([seq], [[out[-1], *draft]], all_logits=True)[0]
                choice = logits.argmax(axis=1)
                j = 0
                while j < len(draft) and int(choice[j]) == draft[j]:
                    j += 1
                accepted += j
                out += draft[:j] + [int(choice[j])]
                self.kv.truncate(seq, base + 1 + j)  # positions of rejected drafts are forgotten
        finally:
            self.kv.release(seq)
        return Speculation(out[:steps], proposed, accepted)


def propose_ngram(history: list[int], ngram: int, max_draft: int) -> list[int]:
    """Tokens that followed the most recent earlier occurrence of history's last ``ngram`` tokens."""
    if len(history) <= ngram:
        return []
    tail = history[-ngram:]
    for start in range(len(history) - ngram - 1, -1, -1):
        if history[start : start + ngram] == tail:
            return history[start + ngram : start + ngram + max_draft]
    return []
