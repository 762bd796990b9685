"""07: n-gram speculative decoding, documented to equal plain greedy, on a vocab-8 model (repetitive text, so
drafts are proposed often and some are partly right): equal to greedy for each of five prompts?"""
from _w import engine, small_model

model = small_model(vocab_size=8, seed=11)
eng = engine(model, act_dtype="f32")
prompts = [[1, 2, 3, 4, 1, 2, 3, 5], [0, 1, 0, 2, 0, 1, 0, 3], [7, 6, 5, 7, 6, 4, 7, 6],
           [2, 2, 3, 2, 2, 4, 2, 2], [5, 1, 5, 2, 5, 1, 5, 3]]
same = []
for p in prompts:
    greedy = eng.generate(p, 40).tokens
    spec = eng.speculative(p, 40, ngram=2, max_draft=4)
    same.append(spec.tokens == greedy)
print("speculative == greedy per prompt:", same)
