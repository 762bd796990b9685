"""01: bf16 engine on a float32 model whose embeddings are not bf16 values. The engine rounds the
embedding rows to bf16 first, so it must compute exactly what it computes for the same model with its
embedding table rounded to bf16 beforehand. The f32 engine (no rounding anywhere) is shown for contrast."""
import numpy as np

from _w import engine, small_tensors
from vtengine.model import Model
from vtengine.numerics import round_bf16

cfg, tensors = small_tensors()
rounded = dict(tensors, **{"model.embed_tokens.weight": round_bf16(tensors["model.embed_tokens.weight"])})
model, model_rounded = Model(cfg, tensors), Model(cfg, rounded)
print("embedding already bf16:", np.array_equal(tensors["model.embed_tokens.weight"],
                                                rounded["model.embed_tokens.weight"]))
prompt = [3, 14, 15, 9, 26, 5]
for dtype in ("f32", "bf16"):
    a = engine(model, act_dtype=dtype).generate(prompt, 6)
    b = engine(model_rounded, act_dtype=dtype).generate(prompt, 6)
    print(f"{dtype} engine: same logits as with the embedding pre-rounded to bf16:",
          a.tokens == b.tokens and np.array_equal(a.logits, b.logits))
