"""03: ModelConfig is the frozen record every model, engine and cache key is built from: hashable (usable
as a dict key), and the shared VT_TINY default cannot be edited in place by one caller for everyone."""
import dataclasses

import _w
from vtengine.config import VT_TINY, ModelConfig

print("hash(VT_TINY):", _w.outcome(lambda: isinstance(hash(VT_TINY), int)))
print("configs as dict keys:", _w.outcome(lambda: len({VT_TINY: 1, ModelConfig(name="x"): 2})))


def edit():
    cfg = ModelConfig()
    cfg.max_context = 64
    return cfg.max_context


print("assigning max_context:", _w.outcome(edit))
print("replace still works:", dataclasses.replace(VT_TINY, max_context=64).max_context, VT_TINY.max_context)
print("summary: hashable", _w.outcome(lambda: hash(VT_TINY) is not None), "| in-place edit", _w.outcome(edit))
