# a checkpoint with both model.safetensors and a stale index (shard gone): the single file wins
import json, shutil, tempfile
from pathlib import Path
from _w import small_config, small_tensors
from vtengine.checkpoint import save_checkpoint, load_checkpoint

tmp = Path(tempfile.mkdtemp())
try:
    cfg = small_config()
    d = save_checkpoint(tmp / "ckpt", cfg, small_tensors(cfg))
    names = list(small_tensors(cfg))
    (d / "model.safetensors.index.json").write_text(json.dumps(
        {"metadata": {}, "weight_map": {n: "model-00001-of-00002.safetensors" for n in names}}))
    try:
        _, tensors = load_checkpoint(d)
        print("loaded", len(tensors), "tensors")
    except Exception as e:
        print("error", type(e).__name__, str(e).replace(str(tmp), "<tmp>"))
finally:
    shutil.rmtree(tmp)
