"""05: an Engine built with an explicit max_tokens holds at most that many positions (rounded up to whole
KV blocks) and refuses more with MemoryError; anything within it runs. A 20-token prompt plus 30 greedy
tokens needs 49 positions, 4 blocks of 16, within max_tokens=64; the default cache holds a sequence in
ceil(length / 16) blocks."""
import _w
from vtengine.kvcache import PagedKVCache

model = _w.small_model()
prompt = [(3 * i + 2) % 64 for i in range(20)]
reference = _w.engine(model).generate(prompt, 30).tokens
limited = _w.engine(model, max_tokens=64)
print("max_tokens=64, 20 + 30 tokens:", _w.outcome(lambda: limited.generate(prompt, 30).tokens == reference))
e = _w.engine(model)
seq = e.kv.new_sequence()
e.forward([seq], [prompt])
for t in range(12):
    e.forward([seq], [[t]])
print("a 32-position sequence holds", len(seq.blocks), "blocks of", e.kv.block_size)
print("summary: limited engine", _w.outcome(lambda: limited.generate(prompt, 30).tokens == reference),
      "| blocks for 32 positions", len(seq.blocks))
