# Speculative decoding that runs right up to the model's context.
import sys; sys.path.insert(0, __file__.rsplit("/", 1)[0]); import _w
from vtengine.engine import Engine
from vtengine.knobs import Knobs
m = _w.small()
e = Engine(m, Knobs())
prompt = [1, 2, 3, 4] * 10  # 40 tokens, 40 + 25 - 1 = 64 = max_context
try:
    s = e.speculative(prompt, 25, ngram=1, max_draft=4)
    print("ok", s.tokens[-5:], s.proposed, s.accepted)
except ValueError as err:
    print("ValueError:", err)
