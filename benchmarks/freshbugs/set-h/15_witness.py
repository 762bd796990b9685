# arms.arm(kernel, name) looks up by both kernel and name
from vtengine.arms import arm
a = arm("gemv", "default")
print(a.kernel, a.name, "|", a.summary)
