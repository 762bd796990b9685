# a checkpoint that says tie_word_embeddings=true but carries a DIFFERENT lm_head.weight must be refused
import json, tempfile
from pathlib import Path
import numpy as np
from safetensors.numpy import save_file
from vtengine.checkpoint import CheckpointError, config_to_hf, load_checkpoint
from vtengine.config import ModelConfig
from vtengine.model import generate_tensors

cfg = ModelConfig(name="w15", vocab_size=64, d_model=32, n_layers=1, n_heads=2, n_kv_heads=1, d_ff=48,
                  max_context=32, tie_word_embeddings=True)
tensors = generate_tensors(cfg)
tensors["lm_head.weight"] = (tensors["model.embed_tokens.weight"] * np.float32(0.5)).copy()
d = Path(tempfile.mkdtemp())
save_file({k: np.ascontiguousarray(v) for k, v in tensors.items()}, str(d / "model.safetensors"))
(d / "config.json").write_text(json.dumps(config_to_hf(cfg)))
try:
    config, loaded = load_checkpoint(d)
    print("loaded", len(loaded), "tensors; lm_head kept:", "lm_head.weight" in loaded)
except CheckpointError as error:
    print("CheckpointError", "lm_head.weight" in str(error))
