"""generate_batch of prompts of different lengths, shortest first: each result must be its own
prompt's greedy continuation (as generate() alone gives it)."""
from _w import engine, small_model

e = engine(small_model(), act_dtype="f32")
prompts = [[5, 6], [1, 2, 3, 4, 5, 6, 7], [9, 10, 11]]
batch = e.generate_batch(prompts, 4)
alone = [e.generate(p, 4) for p in prompts]
for i, (b, a) in enumerate(zip(batch, alone)):
    print(f"prompt {i}: batch {b.tokens} alone {a.tokens}")
print("batch results equal one-by-one, in order:",
      all(b.tokens == a.tokens and (b.logits == a.logits).all() for b, a in zip(batch, alone)))
