# a growing paged KV cache: blocks handed out after doubling must not be blocks already in use
import numpy as np
from vtengine.engine import Engine
from vtengine.kvcache import PagedKVCache
from vtengine.model import load_model
from vtengine.numerics import BF16
from vtengine import tokenizer

m = load_model("vt-tiny")
kv = PagedKVCache(m.config, 4, 8, np.dtype(np.float32), grow=True)
s1, s2 = kv.new_sequence(), kv.new_sequence()
kv.reserve(s1, 8)
kv.reserve(s2, 8)
print("num_blocks", kv.num_blocks, "overlap", sorted(set(s1.blocks) & set(s2.blocks)))

e = Engine(m)
e.kv = PagedKVCache(m.config, 16, 32, BF16, grow=True)  # a small pool that has to grow
prompts = [tokenizer.encode("first prompt, long enough"), tokenizer.encode("second one"), tokenizer.encode("third")]
print("batch", [g.tokens for g in e.generate_batch(prompts, 8)])
print("fresh", [Engine(m).generate(p, 8).tokens for p in prompts])
