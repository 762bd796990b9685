"""07: a generated float32 model on the float32 path (score of 12 ids, so positions 0..11) against an
independent float64 implementation of the Hugging Face Llama forward (rotate-half RoPE on the two halves of
each head, as docs/engine.md says). Position 0 (angle 0) does not depend on the RoPE layout."""
import numpy as np

from _w import engine, reference_logits, small_tensors
from vtengine.model import Model

cfg, tensors = small_tensors()
ids = [1, 5, 9, 2, 7, 3, 11, 4, 8, 6, 10, 12]
got = engine(Model(cfg, tensors), act_dtype="f32").score(ids).logits
ref = reference_logits(cfg, tensors, ids)
err = np.abs(got - ref).max(axis=1)
print("max abs error per position < 1e-4:", [bool(e < 1e-4) for e in err])
print("position 0 close:", bool(err[0] < 1e-4), "| all positions close:", bool((err < 1e-4).all()))
