"""05: a tied checkpoint (tie_word_embeddings true) may carry an lm_head.weight that exporters wrote
anyway; load_checkpoint accepts it "only when it really is the embedding" and refuses a different head.
"Is the embedding" is a statement about values: an exporter that upcast the head to float32 next to a
bfloat16 embedding, or wrote +0.0 where the embedding has -0.0, wrote the same matrix. The witness
writes three tied checkpoints (save_checkpoint, then the head added with safetensors itself) and a
fourth whose head really differs."""
import os

import ml_dtypes
import numpy as np
from safetensors import safe_open
from safetensors.numpy import save_file

import _w
from vtengine.checkpoint import load_checkpoint, save_checkpoint


def tied_checkpoint(embed_dtype, head_of) -> str:
    cfg, tensors = _w.small_tensors(tie_word_embeddings=True)
    tensors = dict(tensors)
    emb = tensors["model.embed_tokens.weight"].copy()
    emb[0, 0] = -0.0
    tensors["model.embed_tokens.weight"] = emb.astype(embed_dtype)
    directory = os.path.join(_w.tmpdir(), "tied")
    save_checkpoint(directory, cfg, tensors)
    weights = os.path.join(directory, "model.safetensors")
    with safe_open(weights, framework="np") as handle:
        stored = {name: handle.get_tensor(name) for name in handle.keys()}  # noqa: SIM118
    stored["lm_head.weight"] = head_of(stored["model.embed_tokens.weight"])
    save_file(stored, weights, metadata={"format": "pt"})
    return directory


cases = {
    "same dtype, same bits": (np.float32, lambda e: e.copy()),
    "bf16 embedding, float32 head (same values)": (ml_dtypes.bfloat16, lambda e: e.astype(np.float32)),
    "head with +0.0 where the embedding has -0.0": (np.float32, lambda e: e + np.float32(0.0)),
    "head really different (x2)": (np.float32, lambda e: e * np.float32(2.0)),
}
verdicts = []
for label, (dtype, head) in cases.items():
    result = _w.outcome(lambda: f"{len(load_checkpoint(tied_checkpoint(dtype, head))[1])} tensors")
    print(f"{label}: {result}")
    verdicts.append(result.split(":")[0].split(" ")[0])
print("summary:", verdicts)
