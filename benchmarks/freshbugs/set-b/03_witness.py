# generate_batch where a later prompt does not fit the context: which error does the user get?
from vtengine.config import ModelConfig
from vtengine.model import Model, generate_tensors
from vtengine.engine import Engine
from vtengine.knobs import Knobs

cfg = ModelConfig(name="w03", vocab_size=64, d_model=32, n_layers=1, n_heads=2, n_kv_heads=1, d_ff=48, max_context=24)
engine = Engine(Model(cfg, generate_tensors(cfg)), Knobs())
try:
    engine.generate_batch([[1, 2, 3], [5] * 20], 8)
    print("no error")
except (ValueError, MemoryError) as error:
    print(type(error).__name__, str(error))
