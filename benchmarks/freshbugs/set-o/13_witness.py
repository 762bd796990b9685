"""Teacher-forced scoring (a multi-row prefill) under the scalar_fma attention arm: causal logits."""
from _w import engine, h, small_model

e = engine(small_model(), paged_attn_scalar_fma=True)
s = e.score([1, 5, 9, 13, 2, 7])
print("score tokens", s.tokens, "hash", h(s.logits))
