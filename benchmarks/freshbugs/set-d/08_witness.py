# load_model(checkpoint_dir, quantize=True) must hold fp8 blocks.
import sys; sys.path.insert(0, __file__.rsplit("/", 1)[0]); import _w
import shutil, tempfile, pathlib
from vtengine.checkpoint import save_checkpoint
from vtengine.model import load_model
m = _w.small()
d = pathlib.Path(tempfile.mkdtemp(prefix="freshbugs-d-08-")) / "ck"
save_checkpoint(d, m.config, m.dequantized_tensors())
q = load_model(str(d), quantize=True)
print(type(q.weights["model.layers.0.mlp.up_proj.weight"]).__name__, q.digest()[:16])
shutil.rmtree(d.parent)
