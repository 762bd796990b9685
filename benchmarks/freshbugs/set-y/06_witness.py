"""06: greedy decoding of `steps` tokens needs prompt + steps - 1 positions: the last chosen token is
returned, never fed back (generate_batch checks exactly that length against the context). So a
generation may fill the context exactly, or an explicit KV limit exactly, and the profiler's decode
phase sees steps - 1 tokens per sequence. The witness runs those three cases on a small model
(max_context 32)."""
import _w

model = _w.small_model(max_context=32)
prompt = [3, 1, 4, 1, 5, 9, 2, 6]
edge = _w.outcome(lambda: len(_w.engine(model).generate(prompt, 25).tokens))  # 8 + 25 - 1 = 32 positions
print("generate up to exactly max_context:", edge)
limit = _w.outcome(lambda: len(_w.engine(model, max_tokens=16, kv_block_size=16).generate(prompt, 9).tokens))
print("generate into exactly max_tokens=16 (8 + 9 - 1 positions):", limit)
eng = _w.engine(model, profile=True)
eng.generate_batch([prompt, prompt[:5]], 6)
decode_tokens = dict(eng.prof.tokens)
print("profiled batch of 2 x 6 steps, tokens per phase:", decode_tokens)
print("summary:", [edge.split(" ")[0], limit.split(" ")[0], decode_tokens.get("decode")])
