"""11: the KV free list holds every block once, shuffled with a fixed seed; numerics do not depend on
which blocks a sequence gets. An f32 engine with a 64-token KV limit (4 blocks of 16): its free list,
and a 40-token prompt's generation compared with full recompute."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _w import engine, small_model  # noqa: E402

import numpy as np  # noqa: E402

model = small_model()
eng = engine(model, max_tokens=64, act_dtype="f32")
blocks = sorted(eng.kv.free)
prompt = [(5 * i + 1) % 64 for i in range(40)]
inc = eng.generate(prompt, 4)
ref = engine(model, act_dtype="f32").generate_recompute(prompt, 4)
print(f"free blocks {blocks}; incremental equals recompute: {inc.tokens == ref.tokens and np.array_equal(inc.logits, ref.logits)}")
