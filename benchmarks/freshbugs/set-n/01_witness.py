"""generate_batch of two prompts of different lengths (3 and 5 tokens) on a 2-layer model: each
sequence's result must equal generating it alone."""
import numpy as np
from _w import engine, outcome, small_model

model = small_model()
prompts = [[1, 2, 3], [9, 8, 7, 6, 5]]
alone = [engine(model).generate(p, 4) for p in prompts]


def batch():
    got = engine(model).generate_batch(prompts, 4)
    return all(g.tokens == a.tokens and np.array_equal(g.logits, a.logits) for g, a in zip(got, alone))


print("alone:", [a.tokens for a in alone])
print("batch equals one-by-one:", outcome(batch))
