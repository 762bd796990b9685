"""13: read an engine's dequant counters twice in a row (a progress line, then the report), and after
two generations."""
from _w import engine, small_model

eng = engine(small_model(), act_dtype="f32", dequant_cache_mb=1)
eng.generate([1, 2, 3], 4)
first = eng.cache.counters()
again = eng.cache.counters()
eng.generate([4, 5, 6], 4)
total = eng.cache.counters()
print(f"after 1 generate: {first} | read again: {again} | after 2 generates: hits {total.hits} misses {total.misses}")
