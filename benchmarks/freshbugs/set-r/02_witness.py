"""Two prompts decoded together in one batch must give what each gives alone; two fresh sequences
must not share a block table."""
from _w import engine, small_model

model = small_model()
eng = engine(model)
a, b = [1, 2, 3, 4, 5, 6, 7, 8, 9], [40, 41, 42, 43, 44]
alone = [eng.generate(p, 6).tokens for p in (a, b)]
batch = [g.tokens for g in eng.generate_batch([a, b], 6)]
s1, s2 = eng.kv.new_sequence(), eng.kv.new_sequence()
print("alone", alone, "batch", batch)
print("batch equals one-by-one:", batch == alone, "| fresh sequences share blocks:", s1.blocks is s2.blocks)
