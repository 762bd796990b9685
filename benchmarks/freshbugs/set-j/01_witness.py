# threaded attention (cpu_threads=2, 2 KV heads): tokens/logits vs the single-threaded engine
from _w import engine, h, small_model

model = small_model()
prompt = [1, 5, 9, 13, 2, 7]
one = engine(model).generate(prompt, 6)
two_engine = engine(model, cpu_threads=2)
two = two_engine.generate(prompt, 6)
two_engine.close()
print("threads=2 tokens", two.tokens, "logits", h(two.logits))
print("equal to threads=1:", one.tokens == two.tokens and h(one.logits) == h(two.logits))
