"""With VT_ACT_DTYPE=f32 the engine computes in float32 and returns float32 logits (decode steps too)."""
from _w import engine, h, small_model

g = engine(small_model(), act_dtype="f32").generate([1, 2, 3], 4)
print("logits dtype", g.logits.dtype, "tokens", g.tokens, "hash", h(g.logits))
