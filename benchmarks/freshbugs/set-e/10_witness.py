import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _w import *

e = engine()
prompt = PROMPT[:4] * 4
s = e.speculative(prompt, 12)
g = e.generate(prompt, 12)
print("speculative", s.tokens, "accepted", s.accepted, "equals greedy:", s.tokens == g.tokens)
