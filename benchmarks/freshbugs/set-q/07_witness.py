"""07: the same speculative call twice on one engine, and once on a fresh engine: the draft counters
each call reports."""
from _w import engine, small_model

model = small_model(vocab_size=8, seed=3)
prompt = [1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6, 7, 1, 2, 3]
eng = engine(model, act_dtype="f32")
first = eng.speculative(prompt, 20)
second = eng.speculative(prompt, 20)
fresh = engine(model, act_dtype="f32").speculative(prompt, 20)
print("tokens equal greedy:", first.tokens == eng.generate(prompt, 20).tokens, second.tokens == first.tokens)
print(f"proposed/accepted: first {first.proposed}/{first.accepted}, second {second.proposed}/{second.accepted}, "
      f"fresh engine {fresh.proposed}/{fresh.accepted}")
