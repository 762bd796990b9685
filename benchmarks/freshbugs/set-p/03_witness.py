"""03: a checkpoint whose down_proj is stored transposed ([d_ff, d_model] = [48, 32] instead of
[d_model, d_ff] = [32, 48]) must be refused with a message that names the tensor's real shape and the
expected one. Prints the shape part of the ModelError message."""
import re

from _w import outcome, small_tensors
from vtengine.model import Model

cfg, tensors = small_tensors()
name = "model.layers.1.mlp.down_proj.weight"
tensors[name] = tensors[name].T.copy()
print("stored shape:", list(tensors[name].shape))
message = outcome(lambda: Model(cfg, tensors))
print(re.search(r"has shape \[[^\]]*\], expected \[[^\]]*\]", message).group(0))
