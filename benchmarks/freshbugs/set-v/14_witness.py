"""14: incremental decode through the paged KV cache against full recompute (documented bit-identical), and the
length a sequence records after one forward of 5 tokens."""
import numpy as np

from _w import engine, small_model

model = small_model()
eng = engine(model, act_dtype="f32")
prompt = [3, 1, 4, 1, 5]
inc = eng.generate(prompt, 8)
rec = eng.generate_recompute(prompt, 8)
seq = eng.kv.new_sequence()
eng.forward([seq], [prompt])
length = seq.length
eng.kv.release(seq)
print("sequence length after a 5-token forward:", length)
print("incremental == recompute: tokens", inc.tokens == rec.tokens, "logits", np.array_equal(inc.logits, rec.logits))
