import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _w import *

e = engine()
g = e.generate(PROMPT, 4)
print("tokens", g.tokens, "logits", h(g.logits))
