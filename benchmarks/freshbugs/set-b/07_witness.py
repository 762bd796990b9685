# bf16 pair-dot GEMV on a model with an odd intermediate size (down_proj has odd K)
import hashlib
from vtengine.config import ModelConfig
from vtengine.model import Model, generate_tensors
from vtengine.engine import Engine
from vtengine.knobs import Knobs

cfg = ModelConfig(name="w07", vocab_size=300, d_model=64, n_layers=2, n_heads=4, n_kv_heads=2, d_ff=97, max_context=64)
model = Model(cfg, generate_tensors(cfg))
s = Engine(model, Knobs(gemv_bf16_dot=True)).score([256, 5, 17, 99, 3, 250, 42, 8])
print("argmax", s.tokens)
print("logits sha", hashlib.sha256(s.logits.tobytes()).hexdigest()[:16])
