# bf16 rounding of exact ties (round-to-nearest-even), and the engine's output
import hashlib
from pathlib import Path
import numpy as np
from vtengine.numerics import round_bf16
from vtengine.model import load_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs

ties = np.array([1.0 + 2.0**-8, -(1.0 + 2.0**-8), 1.0 + 3 * 2.0**-8], np.float32)
print("round_bf16(ties)", round_bf16(ties).tolist())
model = load_model("vt-tiny", cache_dir=Path("/tmp/freshbugs-b-cache"))
print("model digest", model.digest()[:16])
g = Engine(model, Knobs()).generate([256, 1, 2, 3], 4)
print("logits sha", hashlib.sha256(g.logits.tobytes()).hexdigest()[:16])
