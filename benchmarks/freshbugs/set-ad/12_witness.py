"""12: attention scores are scaled by 1/sqrt(head_dim). The engine's scale for head dims 16, 32, 64,
128, compared with 1/sqrt(head_dim) rounded to float32, and a head_dim-8 (d_model 32) model's logits."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _w import digest, engine, small_model  # noqa: E402

import numpy as np  # noqa: E402

ok = []
for hd in (16, 32, 64, 128):
    eng = engine(small_model(d_model=hd * 2, n_heads=2, n_kv_heads=1), act_dtype="f32")
    ok.append(f"{hd}:{eng.scale == np.float32(1.0 / math.sqrt(hd))}")
gen = engine(small_model(), act_dtype="f32").generate([1, 2, 3, 4], 4)
print(f"scale == 1/sqrt(head_dim): {' '.join(ok)}; head_dim 8 tokens {gen.tokens} logits {digest(gen.logits)}")
