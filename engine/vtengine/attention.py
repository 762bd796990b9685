"""Paged attention: gather a sequence's K/V blocks through its block table, then run one arm's
body for one query row (:func:`paged_attention`) or for several rows of the sequence at once
(:func:`paged_attention_rows`, bit-identical to one call per row). A dtype dispatch over q in
{f32, bf16} x kv in {f32, bf16, fp8-e4m3} converts exactly to float32 and picks the body;
:func:`attend_scalar` is the plain-loop reference body the vectorized default must equal bit for bit.

Cache layout (per layer): K as [n_kv, head_dim, num_blocks, block_size] (a gathered K is
[n_kv, head_dim, T]); V as [n_kv, num_blocks, block_size, head_dim]. The default and BFDOT bodies
lay their products out so each reduction runs over the outermost axis, which NumPy sums
sequentially with one long inner loop: q.k products as [head_dim, ..., T], then scores,
probabilities and V products with keys outer ([..., T, n_kv, g] and [..., T, n_kv, g, head_dim]).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vtengine.numerics import BF16, FP8, exp_f32, fma_f32, sum_sequential

Body = Callable[[np.ndarray, np.ndarray, np.ndarray, int, np.float32], np.ndarray]

DTYPES: dict[str, np.dtype] = {"f32": np.dtype(np.float32), "bf16": BF16, "fp8": FP8}


_DTYPE_NAMES: dict[np.dtype, str] = {dtype: name for name, dtype in DTYPES.items()}


def dtype_name(dtype: np.dtype) -> str:
    name = _DTYPE_NAMES.get(np.dtype(dtype))
    if name is None:
        raise ValueError(f"attention has no kernel for dtype {dtype}")
    return name


def gather_kv(
    k_cache: np.ndarray, v_cache: np.ndarray, table: np.ndarray, ctx: int
) -> tuple[np.ndarray, np.ndarray]:
    """Gather the blocks of one sequence: K [n_kv, hd, nb*bs] and V [n_kv, ctx, hd], as float32
    (bf16 and fp8 widen exactly). K keeps the padding slots of the last block; their scores are
    dropped before the softmax."""
    bs = k_cache.shape[3]
    nb = -(-ctx // bs)
    blocks = table[:nb]
    k = k_cache.take(blocks, axis=2)  # [n_kv, hd, nb, bs]
    k = k.reshape(k.shape[0], k.shape[1], nb * bs).astype(np.float32, copy=False)
    v = v_cache.take(blocks, axis=1)  # [n_kv, nb, bs, hd]
    v = v.reshape(v.shape[0], nb * bs, v.shape[3])[:, :ctx, :].astype(np.float32, copy=False)
    return k, v


def _pad_head_dim(q: np.ndarray, k: np.ndarray, multiple: int) -> tuple[np.ndarray, np.ndarray]:
    """Zero-pad q [..., hd] and k [n_kv, hd, T] along head_dim to a multiple of ``multiple`` (for the
    pair-dot and 4-lane bodies). Exact: an extra 0*0 adds +0.0, and no running sum here is -0.0."""
    extra = -q.shape[-1] % multiple
    if extra == 0:
        return q, k
    q = np.concatenate([q, np.zeros((*q.shape[:-1], extra), np.float32)], axis=-1)
    k = np.concatenate([k, np.zeros((k.shape[0], extra, k.shape[2]), np.float32)], axis=1)
    return q, k


def _scores(q: np.ndarray, k: np.ndarray, ctx: int, scale: np.float32, pair_dot: bool) -> np.ndarray:
    """q [*rows, n_kv, g, hd], k [n_kv, hd, T >= ctx] -> scores [*rows, n_kv, g, ctx].

    The products are laid out [hd, *rows, n_kv, g, ctx] (float32): the q.k sum runs over the
    outermost axis, sequential along head_dim, and every NumPy inner loop is a long run of keys.
    With ``pair_dot`` (bf16 pair-dot) adjacent head_dim products are summed first (head_dim
    zero-padded to even: exact), then the pair sums accumulate sequentially."""
    rows = q.ndim - 3
    if pair_dot:
        q, k = _pad_head_dim(q, k, 2)
    hd = q.shape[-1]
    qt = q.transpose(rows + 2, *range(rows + 2))[..., None]  # [hd, *rows, n_kv, g, 1]
    kt = k[:, :, :ctx].transpose(1, 0, 2).reshape(hd, *(1,) * rows, k.shape[0], 1, ctx)  # [hd, *1, n_kv, 1, ctx]
    prod = np.multiply(qt, kt, order="C")
    if pair_dot:
        prod = prod[0::2] + prod[1::2]
    return sum_sequential(prod, axis=0) * scale  # accumulate in float32, sequential along head_dim


def _softmax_v(scores: np.ndarray, v: np.ndarray, valid: np.ndarray | None = None) -> np.ndarray:
    """scores [*rows, n_kv, g, T], v [n_kv, >= T, hd] -> probabilities -> sum_t p[t] * v[t]
    [*rows, n_kv, g, hd]. From the max subtraction on, keys are an outer axis ([*rows, T, n_kv, g]
    and V products [*rows, T, n_kv, g, hd]), so both sums over keys are sequential with long inner
    loops. ``valid`` [R, T] (several rows) marks each row's keys: a masked key's V product is -0.0,
    the additive identity (x + -0.0 == x for every x, +0.0 and -0.0 included), so a masked key adds
    exactly nothing even where its V is inf or NaN (p = +0.0 times NaN would be NaN)."""
    t = scores.shape[-1]
    lead = tuple(range(scores.ndim - 3))
    keys_outer = scores.transpose(*lead, -1, -3, -2)  # [*rows, T, n_kv, g]
    m = np.maximum.reduce(keys_outer, axis=-3, keepdims=True)  # max is exact, any order
    e = exp_f32(np.subtract(keys_outer, m, order="C"))  # subtract in float32, exp in float64, round once
    z = sum_sequential(e, axis=-3)  # accumulate in float32, sequential over keys
    p = e / z[..., None, :, :]
    vt = v[:, :t, :].transpose(1, 0, 2)[:, :, None, :]  # [T, n_kv, 1, hd]
    prod = np.multiply(p[..., None], vt, order="C")  # [*rows, T, n_kv, g, hd]
    if valid is not None:
        np.copyto(prod, np.float32(-0.0), where=~valid[:, :, None, None, None])
    return sum_sequential(prod, axis=-4)  # accumulate in float32, sequential over keys


def attend_default(q: np.ndarray, k: np.ndarray, v: np.ndarray, ctx: int, scale: np.float32) -> np.ndarray:
    """q [H, hd], k [n_kv, hd, T>=ctx], v [n_kv, ctx, hd] -> [H, hd] float32 (the default arm)."""
    n_kv, hd, _ = k.shape
    scores = _scores(q.reshape(n_kv, -1, hd), k, ctx, scale, pair_dot=False)
    return _softmax_v(scores, v).reshape(-1, hd)


def attend_bfdot(q: np.ndarray, k: np.ndarray, v: np.ndarray, ctx: int, scale: np.float32) -> np.ndarray:
    """bf16 pair-dot q.k: bf16 x bf16 products are exact in float32; adjacent pairs are summed
    first, then the pair sums accumulate sequentially. Softmax and V as the default."""
    n_kv, hd, _ = k.shape
    scores = _scores(q.reshape(n_kv, -1, hd), k, ctx, scale, pair_dot=True)
    return _softmax_v(scores, v).reshape(-1, hd)


def attend_fma(q: np.ndarray, k: np.ndarray, v: np.ndarray, ctx: int, scale: np.float32) -> np.ndarray:
    """FMA-contracted body: q.k in 4 lanes (lane l takes d = l, l+4, ...; each step one exact fma),
    lanes combined pairwise (l0+l1)+(l2+l3); softmax as the default; V accumulate fused:
    out = fma(p[t], v[t], out), sequential over keys."""
    n_kv, hd, t_pad = k.shape
    qg, k = _pad_head_dim(q.reshape(n_kv, -1, hd), k, 4)
    g = qg.shape[1]
    lanes = np.zeros((4, n_kv, g, t_pad), np.float32)
    for d0 in range(0, k.shape[1], 4):
        qa = qg[:, :, d0 : d0 + 4].transpose(2, 0, 1)[:, :, :, None]  # [4, n_kv, g, 1]
        ka = k[:, d0 : d0 + 4, :].transpose(1, 0, 2)[:, :, None, :]  # [4, n_kv, 1, T]
        lanes = fma_f32(qa, ka, lanes)
    dots = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
    scores = dots[:, :, :ctx] * scale
    m = scores.max(axis=-1, keepdims=True)
    e = exp_f32(scores - m)
    z = sum_sequential(e, axis=-1)
    p = e / z[..., None]
    out = np.zeros((n_kv, g, hd), np.float32)
    for t in range(ctx):
        out = fma_f32(p[:, :, t, None], v[:, None, t, :], out)
    return out.reshape(-1, hd)


def attend_scalar(q: np.ndarray, k: np.ndarray, v: np.ndarray, ctx: int, scale: np.float32) -> np.ndarray:
    """The reference body in plain loops over float32 scalars, in the default arm's order. Slow;
    the dtype-dispatch bit-identity gate compares the vectorized kernels against it."""
    f32 = np.float32
    n_kv, hd, _ = k.shape
    heads = q.shape[0]
    group = heads // n_kv
    out = np.zeros((heads, hd), np.float32)
    for h in range(heads):
        kv = h // group
        scores = []
        for t in range(ctx):
            acc = f32(0.0)
            for d in range(hd):
                acc = f32(acc + f32(q[h, d] * k[kv, d, t]))
            scores.append(f32(acc * scale))
        m = max(scores)
        e = list(exp_f32(np.array([f32(s - m) for s in scores], np.float32)))
        z = f32(0.0)
        for x in e:
            z = f32(z + x)
        p = [f32(x / z) for x in e]
        for d in range(hd):
            acc = f32(0.0)
            for t in range(ctx):
                acc = f32(acc + f32(p[t] * v[kv, t, d]))
            out[h, d] = acc
    return out


def attend_rows(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, ctxs: np.ndarray, scale: np.float32, arm: str
) -> np.ndarray:
    """Several query rows of one sequence at once (prefill, recompute, verification): q [R, H, hd],
    k [n_kv, hd, T >= max ctx], v [n_kv, >= max ctx, hd], row r attends to positions [0, ctxs[r]).

    Bit-identical to calling the arm's single-row body per row, and causal for every value (a NaN or
    inf at a later position leaves earlier rows alone): every score and product is the same
    elementwise operation; masked keys get score -inf (a select, so a NaN in K does not reach it),
    exp gives +0.0 and p = +0.0, and a masked key's V product is set to -0.0, which adds nothing to
    any sum. The FMA arm's fused V accumulate keeps ``out`` unchanged past a row's context (a
    select, not an add).
    """
    rows, heads, hd = q.shape
    n_kv = k.shape[0]
    t_max = int(ctxs.max())
    qg = q.reshape(rows, n_kv, heads // n_kv, hd)
    if arm == "scalar_fma":
        return _attend_rows_fma(qg, k, v, ctxs, scale).reshape(rows, heads, hd)
    scores = _scores(qg, k, t_max, scale, pair_dot=arm == "bfdot")  # [R, n_kv, g, T]
    valid = np.arange(t_max)[None, :] < ctxs[:, None]  # [R, T]
    scores = np.where(valid[:, None, None, :], scores, np.float32(-np.inf))
    return _softmax_v(scores, v, valid).reshape(rows, heads, hd)


def _attend_rows_fma(qg: np.ndarray, k: np.ndarray, v: np.ndarray, ctxs: np.ndarray, scale: np.float32) -> np.ndarray:
    """The FMA arm's rows: qg [R, n_kv, g, hd] -> [R, n_kv, g, hd] (see :func:`attend_fma`)."""
    rows, n_kv, group, hd = qg.shape
    t_max = int(ctxs.max())
    qg, k = _pad_head_dim(qg, k, 4)
    lanes = np.zeros((4, rows, n_kv, group, k.shape[2]), np.float32)
    for d0 in range(0, k.shape[1], 4):
        qa = qg[:, :, :, d0 : d0 + 4].transpose(3, 0, 1, 2)[..., None]  # [4, R, n_kv, g, 1]
        ka = k[:, d0 : d0 + 4, :].transpose(1, 0, 2)[:, None, :, None, :]  # [4, 1, n_kv, 1, T]
        lanes = fma_f32(qa, ka, lanes)
    dots = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))[..., :t_max]
    valid = np.arange(t_max)[None, :] < ctxs[:, None]  # [R, T]
    scores = np.where(valid[:, None, None, :], dots * scale, np.float32(-np.inf))
    m = scores.max(axis=-1, keepdims=True)
    e = exp_f32(scores - m)
    z = sum_sequential(e, axis=-1)
    p = e / z[..., None]  # [R, n_kv, g, T]
    vt = v[:, :t_max, :]
    out = np.zeros((rows, n_kv, group, hd), np.float32)
    for t in range(t_max):
        fused = fma_f32(p[:, :, :, t, None], vt[None, :, None, t, :], out)
        out = np.where((t < ctxs)[:, None, None, None], fused, out)
    return out


BODIES: dict[str, Body] = {
    "default": attend_default,
    "scalar_fma": attend_fma,
    "bfdot": attend_bfdot,
    "scalar": attend_scalar,
}


def dispatch_body(arm: str, q_dtype: str, kv_dtype: str) -> Body:
    """The body the dtype dispatch runs for (q dtype, kv dtype) under an arm. BFDOT exists only for
    q=bf16, kv=bf16; every other combination runs the default body."""
    if q_dtype not in ("f32", "bf16") or kv_dtype not in DTYPES:
        raise ValueError(f"no attention kernel for q={q_dtype}, kv={kv_dtype}")
    if arm == "bfdot" and not (q_dtype == "bf16" and kv_dtype == "bf16"):
        return attend_default
    return BODIES[arm]


def paged_attention_rows(
    q: np.ndarray,
    k_cache: np.ndarray,
    v_cache: np.ndarray,
    table: np.ndarray,
    ctxs: np.ndarray,
    scale: np.float32,
    arm: str = "default",
    q_dtype: str = "f32",
) -> np.ndarray:
    """Query rows q [R, H, hd] of one sequence, row r over its first ctxs[r] positions: one gather,
    then the rows together (bit-identical to one :func:`paged_attention` call per row)."""
    body = dispatch_body(arm, q_dtype, dtype_name(k_cache.dtype))
    k, v = gather_kv(k_cache, v_cache, table, int(ctxs.max()))
    if len(ctxs) == 1:
        return body(q[0], k, v, int(ctxs[0]), scale)[None]
    arm_of: dict[Body, str] = {attend_default: "default", attend_bfdot: "bfdot", attend_fma: "scalar_fma"}
    effective = arm_of[body]
    return attend_rows(q, k, v, ctxs, scale, effective)


def paged_attention(
    q: np.ndarray,
    k_cache: np.ndarray,
    v_cache: np.ndarray,
    table: np.ndarray,
    ctx: int,
    scale: np.float32,
    arm: str = "default",
    q_dtype: str | None = None,
) -> np.ndarray:
    """Attention of one query row q [H, hd] over the first ``ctx`` cached positions of a sequence.
    ``q_dtype`` names q's logical dtype when q is float32 holding bf16 values (the engine's case)."""
    q_name = q_dtype or dtype_name(q.dtype)
    body = dispatch_body(arm, q_name, dtype_name(k_cache.dtype))
    k, v = gather_kv(k_cache, v_cache, table, ctx)
    return body(q.astype(np.float32, copy=False), k, v, ctx, scale)
