# Batched prefill whose attention is chunked (long prompts, wide model): second sequence's rows.
import sys; sys.path.insert(0, __file__.rsplit("/", 1)[0]); import _w
from vtengine.engine import Engine
from vtengine.knobs import Knobs
m = _w.small(d_model=512, n_heads=8, n_kv_heads=2, n_layers=1, d_ff=128, max_context=256)
prompts = [[(5 * i + 1) % 256 for i in range(100)], [(3 * i + 2) % 256 for i in range(100)]]
gens = Engine(m, Knobs()).generate_batch(prompts, 2)
print("tokens:", [g.tokens for g in gens], "hash:", [_w.h(g.logits) for g in gens])
