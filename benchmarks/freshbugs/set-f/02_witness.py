"""A batch that outgrows the default (growing) KV cache: 1024-token blocks give 4 blocks, 6 prompts."""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w

e = _w.engine(kv_block_size=1024)
prompts = [[256, 10 + i, 20 + 3 * i, 40 + i] for i in range(6)]
batch = [g.tokens for g in e.generate_batch(prompts, 4)]
single = [_w.engine(kv_block_size=1024).generate(p, 4).tokens for p in prompts]
print(batch)
print("batch == single:", batch == single, batch)
