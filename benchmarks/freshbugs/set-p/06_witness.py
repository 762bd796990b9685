"""06: incremental decode (one-row RMSNorm) and full recompute (several-rows RMSNorm) must give the same
logits bits. A float32-path model whose embeddings are small (mean square below rms_norm_eps, so eps
decides the norm's scale), 40 greedy steps from a 1-token prompt: prints how many steps' logits are
bit-identical between generate and generate_recompute."""
import numpy as np

from _w import engine, small_tensors
from vtengine.model import Model

cfg, tensors = small_tensors()
tensors["model.embed_tokens.weight"] = tensors["model.embed_tokens.weight"] * np.float32(1e-3)
eng = engine(Model(cfg, tensors), act_dtype="f32")
inc = eng.generate([7], 40)
rec = eng.generate_recompute([7], 40)
same = sum(int(np.array_equal(a, b)) for a, b in zip(inc.logits, rec.logits))
print(f"tokens equal: {inc.tokens == rec.tokens}; bit-identical logits rows: {same}/40")
