"""01 gemv.py: with VT_CPU_THREADS=2 the threaded column split must give the single-thread result bit for bit."""
import numpy as np
from _w import engine, small_model

model = small_model()
prompt = [1, 5, 9, 2, 7, 3]
one = engine(model, act_dtype="f32").generate(prompt, 6)
e2 = engine(model, act_dtype="f32", cpu_threads=2)
two = e2.generate(prompt, 6)
e2.close()
same = one.tokens == two.tokens and np.array_equal(one.logits, two.logits)
print("threads=1 tokens", one.tokens)
print(f"threads=2 logits bit-identical to threads=1: {same}")
