"""02: greedy generation on small float32 models with head_dim 32 (vt-tiny's) and head_dim 98."""
from _w import engine, outcome, small_model


def run(**shape):
    g = engine(small_model(**shape)).generate([5, 6, 7, 8], 4)
    return f"{len(g.tokens)} tokens, logits {g.logits.shape}"


print("head_dim 32:", outcome(lambda: run()))
print("head_dim 98:", outcome(lambda: run(d_model=196, n_heads=2, n_kv_heads=1)))
