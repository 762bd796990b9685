"""03: the default GEMV's precondition (N >= 2 trailing columns keep the K sum sequential): a 2-column and
a 1-column call, and a model whose LM head has one column (vocab_size 1) through forward_logits."""
import numpy as np

from _w import engine, outcome, small_model
from vtengine.gemv import gemv_default

rng = np.random.default_rng(3)
x = rng.standard_normal((2, 300)).astype(np.float32)
w = rng.standard_normal((300, 2)).astype(np.float32)
print("gemv_default, 2 columns:", outcome(lambda: gemv_default(x, w).shape))
print("gemv_default, 1 column:", outcome(lambda: gemv_default(x, np.ascontiguousarray(w[:, :1])).shape))
model = small_model(vocab_size=1)
print("vocab-1 model, forward_logits:", outcome(lambda: engine(model).forward_logits([0, 0, 0, 0]).shape))
