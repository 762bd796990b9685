# Scores/Generation margins are float64 differences of the float32 logits (exact), not float32 differences.
# float32 subtraction is exact when top-2 is within a factor 2 of top-1 (vt-tiny, almost always), so use a
# small-vocab model whose top-2 logit is often far below the top-1.
import numpy as np
from _w import small_config, small_tensors, sha
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import Model
cfg = small_config(vocab_size=8)
e = Engine(Model(cfg, small_tensors(cfg)), Knobs())
s = e.score([(3 * i + 1) % 8 for i in range(60)])
top = np.sort(s.logits, axis=-1)[:, -2:].astype(np.float64)
exact = top[:, 1] - top[:, 0]
print("margins equal to the exact difference:", int(sum(m == x for m, x in zip(s.margins, exact))), "of", len(exact),
      "| digest", sha(np.asarray(s.margins, np.float64).tobytes()))
