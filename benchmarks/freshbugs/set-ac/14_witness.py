"""14: the arm registry lookup `arms.arm(kernel, name)`."""
from _w import outcome
from vtengine.arms import arm

a = arm("gemv", "blas")
print(f"arm('gemv', 'blas') -> {a.kernel}.{a.name} knob {a.knob}; arm('gemv', 'nope') ->",
      outcome(lambda: arm("gemv", "nope").name))
