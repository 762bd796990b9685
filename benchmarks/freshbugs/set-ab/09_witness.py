"""09 kvcache.py: the KV free list is shuffled with a fixed seed, so two engines lay out blocks alike."""
from _w import engine, small_model

model = small_model()
e1, e2 = engine(model), engine(model)
seq1, seq2 = e1.kv.new_sequence(), e2.kv.new_sequence()
e1.kv.reserve(seq1, 40)
e2.kv.reserve(seq2, 40)
print(f"two engines: same blocks for a 40-position sequence and same free list ({len(e1.kv.free)} blocks): "
      f"{seq1.blocks == seq2.blocks and e1.kv.free == e2.kv.free}")
