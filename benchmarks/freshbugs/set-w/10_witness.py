"""10: the attention dtype dispatch covers q in {f32, bf16} x kv in {f32, bf16, fp8-e4m3}
(docs/engine.md); a query in fp8 (or named q_dtype="fp8") has no kernel and is refused, as
dispatch_body's docstring and error message say."""
import numpy as np

import _w
from vtengine.attention import dispatch_body, paged_attention, paged_attention_rows
from vtengine.numerics import FP8

rng = np.random.default_rng(3)
n_kv, hd, bs, nb, heads = 2, 8, 4, 3, 4
k_cache = rng.standard_normal((n_kv, hd, nb, bs)).astype(np.float32)
v_cache = rng.standard_normal((n_kv, nb, bs, hd)).astype(np.float32)
table = np.array([2, 0, 1])
q = rng.standard_normal((heads, hd)).astype(np.float32)
scale = np.float32(1 / np.sqrt(hd))
print("q=f32:", _w.outcome(lambda: paged_attention(q, k_cache, v_cache, table, 9, scale).shape))
print("q=fp8 array:", _w.outcome(lambda: paged_attention(q.astype(FP8), k_cache, v_cache, table, 9, scale).shape))
print("rows, q_dtype='fp8':", _w.outcome(lambda: paged_attention_rows(q[None], k_cache, v_cache, table, np.array([9]), scale, "default", "fp8").shape))
print("summary: dispatch_body(default, fp8, f32):", _w.outcome(lambda: dispatch_body("default", "fp8", "f32").__name__))
