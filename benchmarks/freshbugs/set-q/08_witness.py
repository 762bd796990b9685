"""08: speculative decoding must equal greedy (docs/engine.md); prompts that fit in one KV block and
prompts that span several."""
from _w import engine, small_model

eng = engine(small_model(vocab_size=8, seed=3), act_dtype="f32")
results = []
for n in (5, 12, 20, 40):
    prompt = [(3 * i + 1) % 8 for i in range(n)]
    spec = eng.speculative(prompt, 16)
    results.append(f"{n}:{spec.tokens == eng.generate(prompt, 16).tokens}")
print("blocks free after the calls:", len(eng.kv.free), "of", eng.kv.num_blocks)
print("speculative equals greedy, by prompt length:", " ".join(results))
