"""Speculative decoding on an engine with an explicit KV limit (max_tokens=32 positions) that the
request does not fit in: the engine must refuse (MemoryError, as greedy does), not hand back a
shorter result as if it had finished."""
from _w import engine, outcome, small_model

model = small_model()
prompt = [(5 * i + 1) % 64 for i in range(10)]
eng = engine(model, max_tokens=32)
print("greedy:", outcome(lambda: len(eng.generate(prompt, 40).tokens)))
spec = outcome(lambda: (lambda s: f"{len(s.tokens)} tokens for 40 steps")(eng.speculative(prompt, 40)))
print("speculative:", spec)
