"""02: a checkpoint whose weights are split over two shards listed in model.safetensors.index.json (no single
model.safetensors), as transformers writes large models: loaded, and equal to the single-file checkpoint?"""
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file

from _w import outcome, small_tensors
from vtengine.checkpoint import load_checkpoint, save_checkpoint

base = Path(tempfile.mkdtemp())
try:
    cfg, tensors = small_tensors()
    single = save_checkpoint(base / "single", cfg, tensors)
    sharded = base / "sharded"
    sharded.mkdir()
    shutil.copy(single / "config.json", sharded / "config.json")
    names = sorted(tensors)
    shards = {"model-00001-of-00002.safetensors": names[: len(names) // 2],
              "model-00002-of-00002.safetensors": names[len(names) // 2:]}
    weight_map = {}
    for shard, members in shards.items():
        save_file({n: np.ascontiguousarray(tensors[n]) for n in members}, str(sharded / shard), metadata={"format": "pt"})
        weight_map.update({n: shard for n in members})
    (sharded / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    print("single file:", outcome(lambda: f"{len(load_checkpoint(single)[1])} tensors"))

    def sharded_load():
        _, got = load_checkpoint(sharded)
        _, ref = load_checkpoint(single)
        same = sorted(got) == sorted(ref) and all(np.array_equal(got[n], ref[n]) for n in ref)
        return f"{len(got)} tensors, equal to the single file: {same}"

    print("two shards + index:", outcome(sharded_load))
finally:
    shutil.rmtree(base)
