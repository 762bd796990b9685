# batched greedy generation of two prompts of different lengths
from pathlib import Path
from vtengine.model import load_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs

model = load_model("vt-tiny", cache_dir=Path("/tmp/freshbugs-b-cache"))
engine = Engine(model, Knobs())
a, b = engine.generate_batch([[256, 10, 20, 30, 40, 50], [256, 99, 7]], 4)
print("batch a", a.tokens)
print("batch b", b.tokens)
print("alone b", engine.generate([256, 99, 7], 4).tokens)
