# save_checkpoint writes safetensors metadata {"format": "pt"} (transformers refuses a file without it)
import tempfile
from pathlib import Path
from safetensors import safe_open
from _w import small_config, small_tensors
from vtengine.checkpoint import save_checkpoint, load_checkpoint
cfg = small_config()
with tempfile.TemporaryDirectory() as tmp:
    d = save_checkpoint(Path(tmp) / "ck", cfg, small_tensors(cfg))
    load_checkpoint(d)  # our own reader does not care
    with safe_open(str(d / "model.safetensors"), framework="np") as f:
        print("metadata:", f.metadata())
