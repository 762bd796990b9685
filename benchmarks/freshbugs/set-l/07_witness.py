"""Incremental decode (prefill once, then one position per step over the paged KV cache) must equal
full recompute, on a 2-layer model."""
from _w import engine, small_model

e = engine(small_model(), act_dtype="f32")
prompt = [3, 1, 4, 1, 5, 9, 2, 6]
inc, rec = e.generate(prompt, 6), e.generate_recompute(prompt, 6)
print("incremental", inc.tokens, "recompute", rec.tokens)
print("incremental decode equals recompute:", inc.tokens == rec.tokens and bool((inc.logits == rec.logits).all()))
