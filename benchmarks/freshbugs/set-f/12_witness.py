"""An exported vt-tiny whose config.json is edited to tie_word_embeddings=true while lm_head differs."""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w

import json, tempfile
from pathlib import Path
from vtengine.checkpoint import load_checkpoint, save_checkpoint
m = _w.model()
with tempfile.TemporaryDirectory() as tmp:
    d = Path(tmp) / "ckpt"
    save_checkpoint(d, m.config, m.dequantized_tensors())
    cfg = json.loads((d / "config.json").read_text())
    cfg["tie_word_embeddings"] = True
    (d / "config.json").write_text(json.dumps(cfg))
    try:
        config, tensors = load_checkpoint(d)
        print("loaded", config.tie_word_embeddings, "lm_head.weight" in tensors)
    except Exception as error:  # noqa: BLE001
        print(type(error).__name__, str(error).split(":")[1].strip()[:60])
