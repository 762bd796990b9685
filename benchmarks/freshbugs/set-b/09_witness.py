# VT_ACT_DTYPE=BF16 (upper case) is accepted: does it select the bf16 engine?
import hashlib
import os
from pathlib import Path
from vtengine.model import load_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs

os.environ["VT_ACT_DTYPE"] = "BF16"
knobs = Knobs.from_env()
print("act_dtype", repr(knobs.act_dtype))
model = load_model("vt-tiny", cache_dir=Path("/tmp/freshbugs-b-cache"))
g = Engine(model, knobs).generate([256, 1, 2, 3], 4)
print("tokens", g.tokens, "sha", hashlib.sha256(g.logits.tobytes()).hexdigest()[:16])
