"""generate_batch of two 100-token prompts on a d_model=256 model: the attention splits each
sequence's rows into chunks (81 rows here), so the first sequence has a short last chunk."""
from _w import engine, outcome, small_model

m = small_model(d_model=256, n_heads=8, n_kv_heads=2, n_layers=1, d_ff=64, vocab_size=64)
e = engine(m, act_dtype="f32")
prompts = [[(3 * i + 1) % 64 for i in range(100)], [(5 * i + 2) % 64 for i in range(100)]]


def run():
    batch = e.generate_batch(prompts, 2)
    alone = [e.generate(p, 2) for p in prompts]
    return all(b.tokens == a.tokens and (b.logits == a.logits).all() for b, a in zip(batch, alone))


print("2x100-token batch equals one-by-one:", outcome(run))
