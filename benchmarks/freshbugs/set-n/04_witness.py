"""Engine.speculative with the prompt given as a tuple of token ids (any sequence of ints works for
generate/score): tokens and draft counters."""
from _w import engine, outcome, small_model

eng = engine(small_model())
prompt = [5, 6, 7, 5, 6, 7, 5, 6]
print("list:", outcome(lambda: eng.speculative(prompt, 8)))
print("tuple:", outcome(lambda: eng.speculative(tuple(prompt), 8)))
