"""01: attention processes a sequence's query rows in chunks so that its temporaries stay bounded
(docstring of Engine._attention: "Rows of a sequence attend together in chunks (bounded memory)"). The
largest temporaries are the [head_dim, rows, heads, ctx] q.k products and the [rows, ctx, heads, head_dim]
V products, about 8 MB per chunk. Scoring a long sequence must therefore not need memory in proportion
to rows x ctx x head_dim. The witness measures the traced peak (NumPy reports its buffers to tracemalloc)
while scoring 40 and 400 tokens on a small float32 model with head_dim 32; tokens are compared too."""
import tracemalloc

import numpy as np

import _w

model = _w.small_model(d_model=128, n_heads=4, n_kv_heads=2, d_ff=96, vocab_size=64, max_context=512)
eng = _w.engine(model, act_dtype="f32")
rng = np.random.default_rng(5)
eng.score([1, 2, 3])  # warm the dequant cache: weight copies are not part of the measurement
peaks, toks = {}, {}
for n in (40, 400):
    ids = [int(t) for t in rng.integers(0, 64, n)]
    tracemalloc.start()
    scores = eng.score(ids)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    peaks[n] = peak / 2**20
    toks[n] = scores.tokens[:5]
    print(f"score of {n} ids: peak {peaks[n]:.0f} MiB, first tokens {toks[n]}")
print("peak below 48 MiB:", {n: p < 48 for n, p in peaks.items()})
