"""06: n-gram speculative decoding on a model with a Llama-3-sized vocabulary (ids above 65535), and
on a small vocab (where ids are small)."""
from _w import engine, outcome, small_model
from vtengine.engine import propose_ngram

small = engine(small_model(), act_dtype="f32")
p = [1, 2, 3, 4, 1, 2, 3, 4, 1, 2]
s = small.speculative(p, 8)
print("small vocab: speculative == greedy", s.tokens == small.generate(p, 8).tokens, s.proposed, s.accepted)
print("propose_ngram small:", propose_ngram([7, 8, 9, 7, 8], 2, 3))
big = engine(small_model(vocab_size=70000, d_model=16, n_heads=2, n_kv_heads=1, d_ff=16, n_layers=1), act_dtype="f32")
prompt = [69990, 69991, 5, 69990, 69991, 5, 69990]
print("greedy on the 70000-vocab model:", big.generate(prompt, 5).tokens)
print("propose_ngram big:", outcome(lambda: propose_ngram(prompt, 2, 3)))
print("speculative on the 70000-vocab model:", outcome(lambda: big.speculative(prompt, 5).tokens))
