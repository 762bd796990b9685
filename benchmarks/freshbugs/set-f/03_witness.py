"""Greedy generation on the default engine: tokens and a hash of the float32 logits."""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w
e = _w.engine()
g = e.generate([256] + [(37 * i + 11) % 256 for i in range(40)], 6)
print(g.tokens, _w.h(g.logits))
