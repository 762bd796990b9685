# save_checkpoint into an existing EMPTY directory (mkdir first, then export) must work
import tempfile
from pathlib import Path
from vtengine import checkpoint
from vtengine.model import load_model

m = load_model("vt-tiny")
with tempfile.TemporaryDirectory() as tmp:
    d = Path(tmp) / "out"
    d.mkdir()
    try:
        checkpoint.save_checkpoint(d, m.config, m.dequantized_tensors())
        print("saved", sorted(p.name for p in d.iterdir()))
    except checkpoint.CheckpointError as err:
        print("refused", str(err).replace(str(d), "DIR"))
    (d / "junk").mkdir(exist_ok=True)
    try:
        checkpoint.save_checkpoint(d, m.config, m.dequantized_tensors())
        print("non-empty: saved")
    except checkpoint.CheckpointError as err:
        print("non-empty: refused")
