"""04: sum_sequential gives the same signed zero on both of its roads (reduce: +0.0 identity)."""
import numpy as np

from vtengine.numerics import sum_sequential

neg = np.array([-0.0, -0.0, -0.0], np.float32)
outer = sum_sequential(np.full((3, 2), -0.0, np.float32), axis=0)  # add.reduce road
inner = sum_sequential(neg, axis=0)  # add.accumulate road
print("reduce road signbit:", bool(np.signbit(outer[0])))
print("accumulate road signbit:", bool(np.signbit(inner)), "repr:", repr(float(inner)))
