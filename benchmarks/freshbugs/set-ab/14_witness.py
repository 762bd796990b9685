"""14 attention.py: paged_attention infers q's dtype, and the BFDOT arm (q=bf16, kv=bf16) pairs the
head_dim products: on keys where that order matters it must differ from the default arm."""
import numpy as np
from _w import digest, outcome
from vtengine.attention import paged_attention
from vtengine.numerics import BF16

rng = np.random.Generator(np.random.PCG64(3))
k32 = rng.standard_normal((2, 8, 4, 4)).astype(np.float32)
v32 = rng.standard_normal((2, 4, 4, 8)).astype(np.float32)
q32 = rng.standard_normal((4, 8)).astype(np.float32)
table = np.array([2, 0, 3, 1])
inferred = outcome(lambda: digest(paged_attention(q32, k32, v32, table, 13, np.float32(0.35))))

# one KV head, head_dim 4, one block of 4: key 0 = [1, 2^24, 1, -2^24] (sequential sum 0, pair sums 1)
k = np.zeros((1, 4, 1, 4), np.float32)
k[0, :, 0, 0] = [1.0, 2.0**24, 1.0, -(2.0**24)]
v = np.zeros((1, 1, 4, 4), np.float32)
v[0, 0, 0] = [1, 2, 3, 4]
v[0, 0, 1] = [-4, -3, -2, -1]
q = np.ones((1, 4), np.float32)
kb, vb = k.astype(BF16), v.astype(BF16)
default = paged_attention(q, kb, vb, np.array([0]), 2, np.float32(1.0), "default", "bf16")
bfdot = paged_attention(q, kb, vb, np.array([0]), 2, np.float32(1.0), "bfdot", "bf16")
print(f"paged_attention(float32 q): {inferred}; bfdot differs from default on bf16 q/kv: {not np.array_equal(default, bfdot)}")
