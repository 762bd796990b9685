# load_model(checkpoint_dir, quantize=True) must hold fp8 block-quantized weights
import tempfile
from pathlib import Path
from vtengine import checkpoint
from vtengine.model import QuantizedWeight, load_model

m = load_model("vt-tiny")
with tempfile.TemporaryDirectory() as tmp:
    d = Path(tmp) / "ck"
    checkpoint.save_checkpoint(d, m.config, m.dequantized_tensors())
    for q in (False, True):
        lm = load_model(str(d), quantize=q)
        w = lm.weights["model.layers.0.mlp.up_proj.weight"]
        print("quantize", q, type(w).__name__, isinstance(w, QuantizedWeight), lm.digest()[:16])
