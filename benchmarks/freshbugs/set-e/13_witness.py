import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _w import *

e = engine(max_tokens=20)
try:
    g = e.generate(PROMPT[:10], 10)  # 19 positions fit within max_tokens=20
    print("ok", g.tokens)
except MemoryError as err:
    print("MemoryError", err)
