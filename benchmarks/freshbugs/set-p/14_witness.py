"""14: an Engine built with an explicit KV limit (max_tokens=64: 4 blocks of 16) serves any sequence of
up to 64 positions, and a sequence holds ceil(length / 16) blocks. Prints generations of 8 and 60
positions under the limit, then the blocks a 3-token sequence holds in a default-sized engine."""
from _w import engine, outcome, small_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs

eng = Engine(small_model(), Knobs(), max_tokens=64)
print("generate 8 positions:", outcome(lambda: eng.generate([1, 2, 3, 4, 5], 4).tokens))
print("generate 60 positions:", outcome(lambda: len(eng.generate(list(range(1, 50)), 12).tokens)))
grown = engine(small_model())  # default size: grows instead of refusing
seq = grown.kv.new_sequence()
grown.forward([seq], [[1, 2, 3]])
print(f"blocks held by a 3-token sequence: {len(seq.blocks)}")
