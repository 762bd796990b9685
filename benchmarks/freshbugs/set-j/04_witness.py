# an fp8 checkpoint (128x128 block scales) whose norms are bfloat16, as DeepSeek-V3-style exports ship them
import tempfile
from pathlib import Path

from _w import small_config
from vtengine.checkpoint import save_checkpoint
from vtengine.model import generate_tensors, load_model
from vtengine.numerics import BF16, FP8, quantize_fp8_blocks

config = small_config()
tensors = {}
for name, array in generate_tensors(config).items():
    if array.ndim == 2:
        codes, scales = quantize_fp8_blocks(array)
        tensors[name] = codes.view(FP8)
        tensors[name + "_scale_inv"] = scales
    else:
        tensors[name] = array.astype(BF16)
directory = Path(tempfile.mkdtemp()) / "fp8-bf16norms"
save_checkpoint(directory, config, tensors)
try:
    model = load_model(str(directory))
    print("loaded: norm dtype-faithful", float(model.tensor("model.norm.weight")[0]) == float(tensors["model.norm.weight"][0]),
          "digest", model.digest()[:16])
except Exception as error:  # noqa: BLE001
    print("load failed:", type(error).__name__, str(error).split(" into ")[0])
