"""10: the dequant budget changes counters, never results (docs/ENVIRONMENT.md: VT_DEQUANT_CACHE_MB=0
dequantizes on every use). A small model generated under budgets of 64 MiB and 0, and under pin with
a budget below the working set."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _w import engine, outcome, small_model  # noqa: E402

model = small_model(d_model=256, n_heads=8, d_ff=512, vocab_size=300)
res = []
for mb, policy in ((64, "lru"), (0, "lru"), (1, "pin")):
    res.append(f"{mb}MiB/{policy}: {outcome(lambda: engine(model, dequant_cache_mb=mb, dequant_cache_policy=policy).generate([1, 2, 3], 3).tokens)}")
print("; ".join(res))
