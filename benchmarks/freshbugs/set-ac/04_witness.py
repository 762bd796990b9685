"""04: ModelConfig is a hashable value type: objects that compare equal must hash equal (here two
configs that differ only in name, e.g. a model and its exported-and-reloaded copy)."""
from vtengine.config import ModelConfig

a = ModelConfig(name="vt-tiny")
b = ModelConfig(name="/tmp/export/vt-tiny")
equal = a == b
print("equal", equal, "| same hash", hash(a) == hash(b), "| distinct in a set", len({a, b}))
print("equal-but-different-hash:", equal and hash(a) != hash(b))
