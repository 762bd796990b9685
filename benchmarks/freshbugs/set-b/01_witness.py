# threaded attention (VT_CPU_THREADS=2) on vt-tiny (8 query heads, 2 KV heads: groups of 4)
import hashlib
from pathlib import Path
from vtengine.model import load_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs

model = load_model("vt-tiny", cache_dir=Path("/tmp/freshbugs-b-cache"))
engine = Engine(model, Knobs(cpu_threads=2))
g = engine.generate([256, 72, 101, 108, 108, 111, 32, 119, 111, 114, 108, 100], 6)
engine.close()
print("tokens", g.tokens)
print("logits sha", hashlib.sha256(g.logits.tobytes()).hexdigest()[:16])
