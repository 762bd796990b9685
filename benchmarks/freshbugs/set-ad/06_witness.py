"""06: Engine(model) without knobs resolves them from the environment (documented: knobs=None means
Knobs.from_env()). An engine built that way, with VT_ACT_DTYPE=f32 in the environment, and one built
with explicit knobs."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _w import outcome, small_model  # noqa: E402

from vtengine.engine import Engine  # noqa: E402
from vtengine.knobs import Knobs  # noqa: E402

os.environ["VT_ACT_DTYPE"] = "f32"
model = small_model()
implicit = outcome(lambda: (lambda e: (e.knobs.act_dtype, e.generate([1, 2, 3], 3).tokens))(Engine(model)))
explicit = outcome(lambda: Engine(model, Knobs(act_dtype="f32")).generate([1, 2, 3], 3).tokens)
print(f"Engine(model): {implicit}; Engine(model, knobs): {explicit}")
