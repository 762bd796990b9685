"""n-gram prompt lookup with the default ngram=2 / max_draft=4: the draft counters of a chain on a
small-vocab model (tokens equal greedy either way)."""
from _w import engine, small_model

e = engine(small_model(vocab_size=8), act_dtype="f32")
prompt = [(3 * i) % 7 + 1 for i in range(40)]
spec = e.speculative(prompt, 30)
print("equals greedy:", spec.tokens == e.generate(prompt, 30).tokens)
print("speculative proposed/accepted:", spec.proposed, spec.accepted)
