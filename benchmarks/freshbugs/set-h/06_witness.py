# a sharded checkpoint (model.safetensors.index.json + 2 shards) loads from any working directory
import json, os, tempfile
from pathlib import Path
import numpy as np
from safetensors.numpy import save_file
from _w import small_config, small_tensors
from vtengine.checkpoint import config_to_hf, load_checkpoint
cfg = small_config()
tensors = small_tensors(cfg)
with tempfile.TemporaryDirectory() as tmp:
    d = Path(tmp) / "sharded"
    d.mkdir()
    (d / "config.json").write_text(json.dumps(config_to_hf(cfg)))
    names = sorted(tensors)
    halves = {"model-00001-of-00002.safetensors": names[: len(names) // 2],
              "model-00002-of-00002.safetensors": names[len(names) // 2 :]}
    weight_map = {}
    for shard, part in halves.items():
        save_file({n: np.ascontiguousarray(tensors[n]) for n in part}, str(d / shard), metadata={"format": "pt"})
        weight_map.update({n: shard for n in part})
    (d / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    os.chdir("/")
    try:
        config, loaded = load_checkpoint(d)
        print("loaded", len(loaded), "tensors; equal:", all(np.array_equal(loaded[n], tensors[n]) for n in tensors))
    except Exception as err:
        print("raised", type(err).__name__)
