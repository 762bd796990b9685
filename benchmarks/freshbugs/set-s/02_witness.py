"""A request that does not fit the context is refused with a message naming the context size
(here 48): generate 40 tokens after a 10-token prompt on a max_context-48 model."""
from _w import engine, outcome, small_model

eng = engine(small_model(max_context=48))
prompt = list(range(1, 11))
print("fits:", outcome(lambda: len(eng.generate(prompt, 39).tokens)))
print("too long:", outcome(lambda: eng.generate(prompt, 40)))
