import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _w import *

e = engine()
lg = e.forward_logits(PROMPT[:5])
print("logits[0,:3]", [float(v).hex() for v in lg[0, :3]], h(lg))
