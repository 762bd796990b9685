import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _w import *

# decode steps normalise one row (the scalar path); the float32 path keeps the ulps visible
e = engine(knobs=Knobs(act_dtype="f32"))
g = e.generate(PROMPT[:6], 3)
print("f32 decode logits", h(g.logits))
