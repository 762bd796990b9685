"""11: dtypes the public API documents as float32: round_bf16's result ("returned as float32"), an fp8 model's
dequantized_tensors() ("every tensor ... as float32"), and the bf16 engine's logits; plus the bf16 engine's
greedy tokens of a small fp8-quantized model."""
import numpy as np

from _w import engine, small_tensors
from vtengine.model import Model
from vtengine.numerics import round_bf16

cfg, tensors = small_tensors()
m = Model(cfg, tensors, quantize=True)
g = engine(m).generate([1, 2, 3, 4], 6)
deq = {str(a.dtype) for a in m.dequantized_tensors().values()}
print("greedy tokens:", g.tokens, "| logits dtype", g.logits.dtype)
print("round_bf16 ->", round_bf16(np.array([1.5, 2.25], np.float32)).dtype, "| dequantized_tensors dtypes:", sorted(deq))
