"""04: numerics do not depend on the KV block size or on which blocks a sequence gets (kvcache.py's
docstring; docs/engine.md invariances): the float32 engine gives bit-identical logits with
VT_KV_BLOCK_SIZE 4, 16 and 64 (one block), and incremental decoding equals full recompute."""
import numpy as np

import _w

model = _w.small_model()
prompt = [(11 * i + 5) % 64 for i in range(30)]
runs = {bs: _w.engine(model, act_dtype="f32", kv_block_size=bs).generate(prompt, 10) for bs in (4, 16, 64)}
recompute = _w.engine(model, act_dtype="f32", kv_block_size=4).generate_recompute(prompt, 10)
same_bs = {bs: np.array_equal(runs[bs].logits, runs[64].logits) for bs in (4, 16)}
print("logits bit-identical to block size 64 (one block):", same_bs)
print("tokens per block size:", {bs: g.tokens for bs, g in runs.items()})
inc = np.array_equal(runs[4].logits, recompute.logits)
print("block size 4: incremental == recompute:", inc)
print("summary: block-size invariant", same_bs, "| incremental == recompute", inc)
