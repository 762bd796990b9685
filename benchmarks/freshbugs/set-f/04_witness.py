"""Speculative decoding on a prompt whose n-gram lookup finds drafts; must equal greedy."""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w

e = _w.engine()
A = [256, 72, 101, 108, 108, 111]
T = e.generate(A, 10).tokens
p = A + T + A
s = e.speculative(p, 12)
print(s.tokens, s.proposed, s.accepted, s.tokens == e.generate(p, 12).tokens)
