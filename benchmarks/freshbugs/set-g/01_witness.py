import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w
from vtengine import tokenizer
g = _w.engine().generate(tokenizer.encode("signed weights"), 8)
print(g.tokens, _w.h(g.logits))
