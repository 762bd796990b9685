"""14: VT_CPU_THREADS is an invariance: a 6-token vocab under 4 threads gives the 1-thread tokens."""
from _w import small_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs

model = small_model(vocab_size=6)
one = Engine(model, Knobs(cpu_threads=1)).generate([1, 2, 3], 5).tokens
engine = Engine(model, Knobs(cpu_threads=4))
try:
    four = engine.generate([1, 2, 3], 5).tokens
    print("4 threads equal 1 thread:", four == one)
except Exception as error:
    print("4 threads:", type(error).__name__)
finally:
    engine.close()
