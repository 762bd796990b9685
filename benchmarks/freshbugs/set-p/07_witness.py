"""07: building an Engine must not touch NumPy's global random state, which the caller owns (a seeded
experiment, sampling with np.random). Prints whether np.random draws after np.random.seed(1234) are the
same with and without an Engine built in between (and a generation run)."""
import numpy as np

from _w import engine, small_model

model = small_model()
np.random.seed(1234)
expected = np.random.random(3)
np.random.seed(1234)
first = np.random.random()
eng = engine(model)
eng.generate([1, 2, 3], 3)
rest = np.random.random(2)
print("caller's random stream unchanged:", bool(np.array_equal(expected, [first, *rest])))
