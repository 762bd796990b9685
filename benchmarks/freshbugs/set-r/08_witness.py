"""generate_batch of prompts of different lengths (the batched prefill gets one id list per
sequence, of different lengths) must equal one-by-one generation."""
from _w import engine, outcome, small_model

model = small_model()
eng = engine(model)
prompts = [[1, 2, 3, 4, 5, 6], [9, 8, 7], [20, 21, 22, 23]]
alone = [eng.generate(p, 5).tokens for p in prompts]
print("same-length batch:", outcome(lambda: [g.tokens for g in eng.generate_batch([prompts[0], prompts[0]], 5)]))
print("mixed-length batch equals one-by-one:", outcome(lambda: [g.tokens for g in eng.generate_batch(prompts, 5)] == alone))
