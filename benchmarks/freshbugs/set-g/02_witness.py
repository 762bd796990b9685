import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w
from vtengine import tokenizer
sp = _w.engine().speculative(tokenizer.encode("abc abc abc abc"), 20, ngram=2, max_draft=4)
print(sp.tokens, "proposed", sp.proposed, "accepted", sp.accepted)
