"""09: closing one Engine releases that engine's resources only. Two engines with cpu_threads=2: the
first generates and is closed, then the second (built before or after the close) generates. Prints
the second engine's outcome."""
from _w import engine, outcome, small_model

model = small_model()
first = engine(model, cpu_threads=2)
second = engine(model, cpu_threads=2)
first.generate([1, 2, 3], 3)
first.close()
third = engine(model, cpu_threads=2)
print("engine built before the close:", outcome(lambda: second.generate([1, 2, 3], 3).tokens))
print("engine built after the close:", outcome(lambda: third.generate([1, 2, 3], 3).tokens))
