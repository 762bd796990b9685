"""speculative() tokens are plain Python ints, like generate()'s: they go into JSON as they are."""
import json

from _w import engine, small_model

e = engine(small_model(vocab_size=8), act_dtype="f32")
prompt = [1, 2, 3, 4, 1, 2, 3, 4, 1, 2]
spec = e.speculative(prompt, 12)
print("equals greedy:", spec.tokens == e.generate(prompt, 12).tokens, "proposed/accepted", spec.proposed, spec.accepted)
print("token types:", sorted({type(t).__name__ for t in spec.tokens}))
try:
    print("json.dumps(speculative tokens):", json.dumps(spec.tokens))
except TypeError as error:
    print("json.dumps(speculative tokens): TypeError:", error)
