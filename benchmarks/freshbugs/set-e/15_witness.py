import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _w import *

e = engine(knobs=Knobs(act_dtype="f32"))
g = e.generate(PROMPT, 4)
print("f32 tokens", g.tokens, "logits", h(g.logits))
