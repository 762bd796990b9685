"""07: a batch that outgrows the engine's default-sized KV cache during decode (max_context 64: 256 positions
= 16 blocks; 8 prompts of 32 tokens fill them, the first decode step needs a 17th block), compared with
generating each prompt alone."""
from _w import engine, h, small_model

model = small_model(max_context=64)
prompts = [[(7 * i + 3 * j) % 64 for j in range(32)] for i in range(8)]
batch = engine(model).generate_batch(prompts, 4)
alone = [engine(model).generate(p, 4) for p in prompts]
print("small prompts (no growth) equal:",
      [g.tokens for g in engine(model).generate_batch([p[:3] for p in prompts[:2]], 4)]
      == [engine(model).generate(p[:3], 4).tokens for p in prompts[:2]])
same = [b.tokens == a.tokens and h(b.logits) == h(a.logits) for b, a in zip(batch, alone)]
print("after growth, batch equals one-by-one per sequence:", same)
