import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _w import *

# the FMA arm's softmax denominator sums over keys along the last axis (trailing size 1)
e = engine(knobs=Knobs(act_dtype="f32", paged_attn_scalar_fma=True))
g = e.generate(PROMPT, 4)
print("f32 fma tokens", g.tokens, "logits", h(g.logits))
