import sys; sys.path.insert(0, __file__.rsplit("/", 1)[0]); import _w
from vtengine import tokenizer
print(repr(tokenizer.decode(tokenizer.encode("héllo ✓ wörld"))))
