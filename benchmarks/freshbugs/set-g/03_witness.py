import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w
from vtengine import tokenizer
e = _w.engine(profile=True)
e.generate(tokenizer.encode("profile me"), 6)
print(sorted((p, s, c) for (p, s), c in e.prof.calls.items() if s in ("lm_head", "embed")), dict(e.prof.tokens))
