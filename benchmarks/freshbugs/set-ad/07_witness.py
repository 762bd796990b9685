"""07: save_checkpoint into a new directory, and into an existing empty one (docs/checkpoints.md:
only a non-empty directory is refused without overwrite); each is then loaded back."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _w import outcome, scrub, small_model, tmpdir  # noqa: E402

from vtengine.checkpoint import load_checkpoint, save_checkpoint  # noqa: E402

model = small_model()
tensors = model.dequantized_tensors()
root = tmpdir()
results = []
for name, make in (("new", False), ("empty", True)):
    target = os.path.join(root, name)
    if make:
        os.mkdir(target)
    save_checkpoint(target, model.config, tensors)
    results.append(f"{name}: {outcome(lambda: len(load_checkpoint(target)[1]))} {sorted(os.listdir(target))}")
print(scrub("; ".join(results)))
