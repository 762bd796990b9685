import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _w import *

e = engine(knobs=Knobs(act_dtype="f32"))  # the float32 reference path: no bf16 rounding hides an ulp
g = e.generate(PROMPT, 4)
print("f32 tokens", g.tokens, "logits", h(g.logits))
