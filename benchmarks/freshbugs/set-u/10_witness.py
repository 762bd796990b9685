"""10: the default GEMV arm's documented order, float32 accumulate sequential along K (docs/engine.md:
"2^24 + 1 + 1 + 1 is 2^24 added one by one"): x = [2^24, 1, 1, 1] times a column of ones, through
gemv_default and through the engine's Linear."""
import numpy as np

from vtengine.gemv import Linear, gemv_default

x = np.array([[2.0**24, 1.0, 1.0, 1.0]], np.float32)
w = np.ones((4, 2), np.float32)
y = gemv_default(x, w)
print("dtype:", y.dtype, "| Linear:", Linear("default", None, 1)(x, w)[0].tolist())
print("gemv_default:", y[0].tolist(), "| float32 sequential (2^24):", bool((y == 2.0**24).all()))
