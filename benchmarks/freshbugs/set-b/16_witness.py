# a float16 model: weights should be used at float16 precision
import hashlib
import numpy as np
from vtengine.config import ModelConfig
from vtengine.model import Model, generate_tensors
from vtengine.engine import Engine
from vtengine.knobs import Knobs

cfg = ModelConfig(name="w16", vocab_size=300, d_model=64, n_layers=2, n_heads=4, n_kv_heads=2, d_ff=96, max_context=64)
tensors = {k: v.astype(np.float16) for k, v in generate_tensors(cfg).items()}
model = Model(cfg, tensors)
w = model.tensor("model.layers.0.self_attn.q_proj.weight")
print("q_proj equals float16 values:", bool((w == tensors["model.layers.0.self_attn.q_proj.weight"].astype(np.float32)).all()))
s = Engine(model, Knobs(act_dtype="f32")).score([256, 5, 17, 99, 3])
print("logits sha", hashlib.sha256(s.logits.tobytes()).hexdigest()[:16])
