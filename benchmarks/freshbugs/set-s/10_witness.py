"""Numerics do not depend on the KV block size (docs/engine.md, VT_KV_BLOCK_SIZE is bit-exact with
the default): greedy tokens and logits under block sizes 8, 12 and 5 equal those under 16."""
import numpy as np

from _w import engine, outcome, small_model

model = small_model()
prompt = [(7 * i + 2) % 64 for i in range(30)]
ref = engine(model, kv_block_size=16).generate(prompt, 10)


def same(bs: int) -> bool:
    g = engine(model, kv_block_size=bs).generate(prompt, 10)
    return g.tokens == ref.tokens and np.array_equal(g.logits, ref.logits)


print("tokens (16):", ref.tokens)
print("equal to block size 16:", {bs: outcome(lambda bs=bs: same(bs)) for bs in (8, 12, 5)})
