"""save_checkpoint into a directory that exists but is empty (mkdir first, then save): the docs refuse
only an existing non-empty directory."""
import shutil
import tempfile
from pathlib import Path

from _w import small_model

from vtengine.checkpoint import load_checkpoint, save_checkpoint

m = small_model()
root = Path(tempfile.mkdtemp(prefix="setm02-"))
try:
    target = root / "ckpt"
    target.mkdir()

    def run():
        save_checkpoint(target, m.config, m.dequantized_tensors())
        cfg, tensors = load_checkpoint(target)
        return f"saved and loaded {len(tensors)} tensors"

    from _w import outcome
    print("save into an existing empty directory:", outcome(run).replace(str(root), "TMP"))
finally:
    shutil.rmtree(root)
