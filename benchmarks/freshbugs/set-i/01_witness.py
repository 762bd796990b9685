"""01: speculative() must return exactly `steps` tokens (equal to greedy)."""
from _w import small_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs

engine = Engine(small_model(vocab_size=8), Knobs())
prompt = [1, 2, 3, 4]
spec = engine.speculative(prompt, 8)
greedy = engine.generate(prompt, 8).tokens
print("speculative tokens:", spec.tokens)
print(f"len={len(spec.tokens)} equals_greedy={spec.tokens == greedy}")
