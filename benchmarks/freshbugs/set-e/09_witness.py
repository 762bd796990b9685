import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _w import *

e = engine()
prompt = list(PROMPT[:5])
e.generate_recompute(prompt, 3)
print("caller prompt after generate_recompute:", prompt)
