# save_checkpoint(overwrite=True) twice into one parent: what is left next to the checkpoint afterwards
import tempfile
from pathlib import Path

from _w import small_config
from vtengine.checkpoint import save_checkpoint
from vtengine.model import generate_tensors

config = small_config()
tensors = generate_tensors(config)
parent = Path(tempfile.mkdtemp())
for _ in range(3):
    save_checkpoint(parent / "ckpt", config, tensors, overwrite=True)
names = sorted(p.name.split("-")[0] for p in parent.iterdir())
print("entries in parent after 3 saves:", names)
