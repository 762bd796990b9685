"""14: arm(kernel, name) looks an arm up in the registry and refuses a name the kernel does not have
(a misspelt arm must not pass silently). A known arm, a misspelt one, and an arm of the other kernel."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _w import outcome  # noqa: E402

from vtengine.arms import arm  # noqa: E402

print(f"gemv/blas: {outcome(lambda: arm('gemv', 'blas').knob)}; gemv/bf16dot: {outcome(lambda: arm('gemv', 'bf16dot'))}; "
      f"gemv/bfdot: {outcome(lambda: arm('gemv', 'bfdot'))}")
