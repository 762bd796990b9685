"""04 engine.py: on the float32 path, generating twice from the same prompt gives the same tokens and logits."""
import numpy as np
from _w import digest, engine, small_model

model = small_model()
before = model.digest()[:16]
e = engine(model, act_dtype="f32")
a = e.generate([1, 5, 9, 2], 8)
b = e.generate([1, 5, 9, 2], 8)
print("first", a.tokens, "second", b.tokens)
print(f"second run identical: {a.tokens == b.tokens and np.array_equal(a.logits, b.logits)}; model weights unchanged: {model.digest()[:16] == before}")
