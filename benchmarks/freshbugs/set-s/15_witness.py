"""vt-tiny scores token sequences of any length that fits its context: 4, 16 and 64 ids (a long
prefill runs each linear in row chunks)."""
from _w import outcome

from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import load_model

eng = Engine(load_model("vt-tiny"), Knobs())
result = {}
for n in (4, 16, 64):
    ids = [256] + [(13 * i + 7) % 256 for i in range(n - 1)]
    result[n] = outcome(lambda ids=ids: len(eng.score(ids).tokens))
print("score by length:", result)
