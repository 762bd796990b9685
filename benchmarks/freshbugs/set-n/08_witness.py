"""load_checkpoint of a checkpoint whose config.json has a malformed quantization_config (a string, as
some hand-edited configs have): every problem must be a CheckpointError naming the key."""
import json
import tempfile
from pathlib import Path

from _w import outcome, small_model

from vtengine.checkpoint import load_checkpoint, save_checkpoint

model = small_model()
with tempfile.TemporaryDirectory() as tmp:
    out = save_checkpoint(Path(tmp) / "ckpt", model.config, model.dequantized_tensors())
    hf = json.loads((out / "config.json").read_text())
    for quant in ({"quant_method": "fp8", "weight_block_size": [64, 64]}, "fp8"):
        hf["quantization_config"] = quant
        (out / "config.json").write_text(json.dumps(hf))
        said = outcome(lambda: load_checkpoint(out)[0].name).replace(str(out), "DIR")
        print(repr(quant), "->", said[:75], end=" | ")
print()
