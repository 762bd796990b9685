# A tied-embeddings checkpoint that also carries an lm_head.weight which is NOT the embedding.
import sys; sys.path.insert(0, __file__.rsplit("/", 1)[0]); import _w
import shutil, tempfile, pathlib
import numpy as np
from safetensors.numpy import save_file
from vtengine.checkpoint import load_checkpoint, save_checkpoint
m = _w.small(tie_word_embeddings=True)
d = pathlib.Path(tempfile.mkdtemp(prefix="freshbugs-d-06-")) / "ck"
t = m.dequantized_tensors()
save_checkpoint(d, m.config, t)
t["lm_head.weight"] = t["model.embed_tokens.weight"][::-1].copy()
save_file({k: np.ascontiguousarray(v) for k, v in t.items()}, str(d / "model.safetensors"), metadata={"format": "pt"})
try:
    cfg, tensors = load_checkpoint(d)
    print("loaded", sorted(tensors)[:1], len(tensors))
except ValueError as err:
    print("refused:", type(err).__name__, str(err)[:100])
shutil.rmtree(d.parent)
