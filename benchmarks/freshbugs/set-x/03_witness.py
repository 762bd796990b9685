"""03: VT_CPU_THREADS only splits work: "each element's arithmetic is unchanged" (docs/engine.md,
invariances of the default arm), so the float32 reference path gives bit-identical logits at any
thread count, for greedy decoding, scoring and a batch."""
import numpy as np

import _w

model = _w.small_model(d_model=64, d_ff=96, vocab_size=128)
prompt = [(7 * i + 3) % 128 for i in range(20)]
one = _w.engine(model, act_dtype="f32")
g1, s1 = one.generate(prompt, 10), one.score(prompt)
b1 = one.generate_batch([prompt, prompt[:9]], 6)
results = {}
for threads in (2, 3):
    e = _w.engine(model, act_dtype="f32", cpu_threads=threads)
    g, s = e.generate(prompt, 10), e.score(prompt)
    b = e.generate_batch([prompt, prompt[:9]], 6)
    e.close()
    results[threads] = (
        np.array_equal(g.logits, g1.logits),
        np.array_equal(s.logits, s1.logits),
        all(np.array_equal(x.logits, y.logits) for x, y in zip(b, b1, strict=True)),
    )
    print(f"threads {threads}: generate / score / batch logits bit-identical to 1 thread:", results[threads],
          "| tokens equal", g.tokens == g1.tokens)
print("summary: bit-identical at 2 and 3 threads (generate, score, batch):", results)
