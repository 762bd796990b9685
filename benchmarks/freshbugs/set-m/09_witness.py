"""round_bf16 on exact ties (float32 values halfway between two bf16 numbers): nearest-even. The bf16
engine rounds after every op, so its logits depend on it."""
import numpy as np

from _w import engine, h, small_model

from vtengine.numerics import round_bf16

x = np.array([1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8), 3 + 2**-7], np.float32)
ties = [float(v).hex() for v in np.asarray(round_bf16(x)).ravel()]
g = engine(small_model()).generate([1, 2, 3, 4, 5, 6], 6)  # default knobs: the bf16 engine
print(f"round_bf16 of ties: {ties} | bf16 engine tokens {g.tokens} logits {h(g.logits)}")
