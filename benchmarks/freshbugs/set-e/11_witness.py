import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _w import *

import dataclasses
cfg = dataclasses.replace(CFG, vocab_size=40, max_context=128)
e = engine(cfg)
prompt = list(range(40)) + list(range(39, -1, -1))  # every token occurs twice, followed differently
s = e.speculative(prompt, 8, ngram=1, max_draft=3)
print("tokens", s.tokens, "proposed", s.proposed, "accepted", s.accepted)
