"""08: dequant-cache counters of a small generated model (a few KB of matrices) after one greedy generate,
under the default budget (64 MiB: everything fits, so only the first use of each matrix misses) and under
VT_DEQUANT_CACHE_MB=1, and the budget the cache was given."""
from _w import engine, small_model

model = small_model()
for mb in (64, 1):
    e = engine(model, dequant_cache_mb=mb)
    e.generate([1, 2, 3], 8)
    c = e.cache.counters()
    print(f"{mb} MiB: budget {e.cache.budget_bytes} bytes, hits {c.hits}, misses {c.misses}, resident {c.resident_bytes}")
