"""An fp8 checkpoint written by save_checkpoint (config.json gets the DeepSeek-V3 style
quantization_config, weight_block_size [128, 128]) must read back."""
import tempfile
from pathlib import Path

from vtengine.checkpoint import SCALE_SUFFIX, load_checkpoint, save_checkpoint
from vtengine.model import Model, QuantizedWeight
from vtengine.numerics import FP8

from _w import outcome, small_tensors

cfg, tensors = small_tensors()
model = Model(cfg, tensors, quantize=True)
fp8 = {}
for name, weight in model.weights.items():
    if isinstance(weight, QuantizedWeight):
        fp8[name] = weight.codes.view(FP8)
        fp8[name + SCALE_SUFFIX] = weight.scales
    else:
        fp8[name] = weight
with tempfile.TemporaryDirectory() as tmp:
    out = save_checkpoint(Path(tmp) / "fp8-ckpt", cfg, fp8)
    print("config block size:", (out / "config.json").read_text().count("128"))
    def reload():
        config, loaded = load_checkpoint(out)
        return f"{len(loaded)} tensors, same digest: {Model(config, loaded).digest() == model.digest()}"
    print("reload:", outcome(reload))
