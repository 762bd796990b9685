"""01: a batch of two prompts on an engine whose default-sized KV cache holds one block (block size
512 = the default 4 x max_context tokens) must grow the pool: the second sequence needs a block."""
from _w import engine, outcome, small_model

m = small_model()  # max_context 128: default cache 4 * 128 = 512 tokens
e = engine(m, kv_block_size=512)
print("blocks before:", e.kv.num_blocks)
print(outcome(lambda: [g.tokens for g in e.generate_batch([[1, 2, 3], [4, 5]], 3)]))
