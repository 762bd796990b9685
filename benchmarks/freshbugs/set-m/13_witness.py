"""load_model(checkpoint_dir, quantize=True): the documented way to run a float checkpoint as fp8."""
import shutil
import tempfile
from pathlib import Path

from _w import small_model

from vtengine.checkpoint import save_checkpoint
from vtengine.model import QuantizedWeight, load_model

m = small_model()
root = Path(tempfile.mkdtemp(prefix="setm13-"))
try:
    save_checkpoint(root / "ckpt", m.config, m.dequantized_tensors())
    plain = load_model(str(root / "ckpt"))
    q = load_model(str(root / "ckpt"), quantize=True)
    kinds = sorted({type(w).__name__ for w in q.weights.values()})
    n_q = sum(isinstance(w, QuantizedWeight) for w in q.weights.values())
    print(f"quantize=True: weight kinds {kinds}, fp8 matrices {n_q}, digest differs from float {q.digest() != plain.digest()}")
finally:
    shutil.rmtree(root)
