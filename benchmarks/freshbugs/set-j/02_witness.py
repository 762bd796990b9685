# Engine(max_tokens=0): an explicit limit of zero KV positions must refuse to run
from _w import small_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs

eng = Engine(small_model(), Knobs(), max_tokens=0)
try:
    print("generated", eng.generate([1, 2, 3], 2).tokens)
except MemoryError as error:
    print("MemoryError:", error)
