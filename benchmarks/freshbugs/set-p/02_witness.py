"""02: a tied-embedding checkpoint that also carries an lm_head.weight is accepted only when that head IS
the embedding; here the head differs from it by about 1e-6 relative (another set of weights, which the
engine would silently replace by the embedding). Prints what load_checkpoint says."""
import tempfile
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file, save_file

from _w import outcome, small_tensors
from vtengine.checkpoint import load_checkpoint, save_checkpoint

cfg, tensors = small_tensors(tie_word_embeddings=True)
with tempfile.TemporaryDirectory() as tmp:
    ckpt = save_checkpoint(Path(tmp) / "tied", cfg, tensors)
    stored = load_file(str(ckpt / "model.safetensors"))
    head = stored["model.embed_tokens.weight"] * np.float32(1 + 1e-6)
    print("head differs from the embedding:", not np.array_equal(head, stored["model.embed_tokens.weight"]))
    stored["lm_head.weight"] = head
    save_file(stored, str(ckpt / "model.safetensors"), metadata={"format": "pt"})
    print(outcome(lambda: f"loaded {len(load_checkpoint(ckpt)[1])} tensors").replace(tmp, "<tmp>"))
