"""Each profiled Engine has its own Profiler: a second engine's token counts start at zero."""
from _w import engine, small_model

m = small_model()
first = engine(m, profile=True)
first.generate([1, 2, 3], 3)
second = engine(m, profile=True)
second.generate([1, 2, 3], 3)
print("second engine tokens:", dict(second.prof.tokens), "calls(decode,linear):", second.prof.calls[("decode", "linear")])
