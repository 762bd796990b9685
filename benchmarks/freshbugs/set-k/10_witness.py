# teacher-forced logits of a small float32 model (head_dim 12: scale 1/sqrt(12) is not a power of two)
from _w import small_model, h
from vtengine.engine import Engine
from vtengine.knobs import Knobs

eng = Engine(small_model(d_model=48, n_heads=4, n_kv_heads=2), Knobs(act_dtype="f32"))
s = eng.score([256, 3, 1, 4, 1, 5, 9, 2, 6, 5])
print("tokens", s.tokens, "logits", h(s.logits))
