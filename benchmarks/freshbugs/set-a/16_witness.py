# the loaded config of a checkpoint is named by its directory path (docs/checkpoints.md)
import tempfile
from pathlib import Path
from vtengine import checkpoint
from vtengine.model import load_model

m = load_model("vt-tiny")
print("embedded name", m.config.name)
with tempfile.TemporaryDirectory() as tmp:
    d = Path(tmp) / "models" / "my-llama"
    checkpoint.save_checkpoint(d, m.config, m.dequantized_tensors())
    c, _ = checkpoint.load_checkpoint(d)
    lm = load_model(str(d))
    print("name is the path", c.name == str(d), lm.config.name == str(d))
    print("name", c.name.replace(tmp, "TMP"))
