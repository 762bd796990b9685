"""13: VT_CPU_THREADS invariance (documented: threads split GEMV output columns, every element's arithmetic is
unchanged): a small GQA model's greedy tokens and logits at 1 and 2 threads."""
import numpy as np

from _w import engine, outcome, small_model

model = small_model()
prompt = [1, 2, 3, 4, 5, 6, 7]
one = engine(model).generate(prompt, 6)


def two_threads():
    eng = engine(model, cpu_threads=2)
    try:
        g = eng.generate(prompt, 6)
    finally:
        eng.close()
    return f"tokens equal {g.tokens == one.tokens}, logits bit-identical {np.array_equal(g.logits, one.logits)}"


print("1 thread: tokens", one.tokens)
print("2 threads vs 1:", outcome(two_threads))
