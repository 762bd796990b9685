"""10 dequant.py: CacheCounters is a (frozen) dataclass record: dataclasses.asdict and replace work on it."""
import dataclasses
from _w import engine, outcome, small_model

e = engine(small_model())
e.generate([1, 2, 3], 2)
c = e.cache.counters()
print(f"asdict: {outcome(lambda: dataclasses.asdict(c))} | equals a plain tuple: {c == tuple(dataclasses.astuple(c)) if dataclasses.is_dataclass(c) else c == tuple(c)}")
