"""08: a checkpoint with an int32 tensor is refused naming the tensor and its dtype (not as an unreadable file)."""
import json
import tempfile
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file

from _w import small_model
from vtengine.checkpoint import CheckpointError, config_to_hf, load_checkpoint

model = small_model()
tensors = model.dequantized_tensors()
tensors["model.norm.weight"] = np.arange(model.config.d_model, dtype=np.int32)
with tempfile.TemporaryDirectory() as tmp:
    (Path(tmp) / "config.json").write_text(json.dumps(config_to_hf(model.config)))
    save_file(tensors, str(Path(tmp) / "model.safetensors"))
    try:
        load_checkpoint(tmp)
        print("loaded")
    except CheckpointError as error:
        print("CheckpointError:", str(error).replace(tmp, "<dir>")[:90])
