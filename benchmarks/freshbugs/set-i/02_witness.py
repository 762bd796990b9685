"""02: a generate that fails part-way (KV cache limit) must give its blocks back."""
from _w import small_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs

engine = Engine(small_model(), Knobs(), max_tokens=32)  # 2 blocks of 16: an explicit limit
try:
    engine.generate(list(range(1, 17)), 20)  # needs a 3rd block during decode
    print("first: ok")
except MemoryError as error:
    print("first: MemoryError")
try:
    gen = engine.generate([256, 1, 2, 3], 4)
    print("second generate after the failure:", gen.tokens)
except MemoryError as error:
    print("second generate after the failure: MemoryError:", str(error).split(":")[0])
