"""05: token ids as NumPy integers (a prompt kept as an array, ids from argmax or np.fromfile) are token
ids like any other. Prints generate/score on a prompt given as a list of np.int64 and as an ndarray."""
import numpy as np

from _w import engine, outcome, small_model

eng = engine(small_model())
prompt = [3, 17, 42, 5, 9]
as_np = list(np.array(prompt, dtype=np.int64))
plain = eng.generate(prompt, 4).tokens
print("generate, list of np.int64:", outcome(lambda: eng.generate(as_np, 4).tokens == plain))
print("score, ndarray:", outcome(lambda: eng.score(np.array(prompt)).tokens == eng.score(prompt).tokens))
