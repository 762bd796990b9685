# a tied-embedding checkpoint that also stores an lm_head.weight DIFFERENT from the embedding must be refused
import dataclasses, json, tempfile
from pathlib import Path
import numpy as np
from safetensors.numpy import save_file
from vtengine import checkpoint
from vtengine.model import load_model

m = load_model("vt-tiny")
cfg = dataclasses.replace(m.config, tie_word_embeddings=True)
tensors = m.dequantized_tensors()
head = tensors.pop("lm_head.weight")
with tempfile.TemporaryDirectory() as tmp:
    d = Path(tmp) / "tied"
    checkpoint.save_checkpoint(d, cfg, tensors)
    save_file({**tensors, "lm_head.weight": np.ascontiguousarray(head)}, str(d / "model.safetensors"))
    try:
        c, t = checkpoint.load_checkpoint(d)
        print("loaded", c.tie_word_embeddings, "lm_head.weight" in t)
    except checkpoint.CheckpointError as err:
        print("refused", str(err).replace(str(d), "DIR"))
    # the same with a bit-identical copy is accepted
    save_file({**tensors, "lm_head.weight": tensors["model.embed_tokens.weight"]}, str(d / "model.safetensors"))
    c, t = checkpoint.load_checkpoint(d)
    print("identical copy loaded", "lm_head.weight" in t)
