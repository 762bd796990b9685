"""08: Linear splits a long input into row chunks (bounded memory) and joins them; results must not
depend on the input's length. vt-tiny: a 3-token greedy generation, and scores of 4 and 12 tokens
(vt-tiny's gate/up linear takes 5 rows per chunk)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _w import outcome  # noqa: E402

from vtengine.engine import Engine  # noqa: E402
from vtengine.knobs import Knobs  # noqa: E402
from vtengine.model import load_model  # noqa: E402

eng = Engine(load_model("vt-tiny"), Knobs())
gen = outcome(lambda: eng.generate([256, 72, 105], 3).tokens)
short = outcome(lambda: eng.score([256, 72, 105, 33]).tokens[:3])
long = outcome(lambda: eng.score(list(range(256, 259)) + list(range(65, 74))).tokens[:3])
print(f"generate {gen}; score 4 {short}; score 12 {long}")
