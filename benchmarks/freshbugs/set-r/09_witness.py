"""A sharded checkpoint (model-0000N-of-00002.safetensors + model.safetensors.index.json, as
transformers writes big models) must load, and equal the single-file checkpoint."""
import json
import tempfile
from pathlib import Path

from safetensors.numpy import save_file

from vtengine.checkpoint import load_checkpoint, save_checkpoint
from vtengine.model import Model

from _w import outcome, small_tensors

cfg, tensors = small_tensors()
with tempfile.TemporaryDirectory() as tmp:
    single = save_checkpoint(Path(tmp) / "single", cfg, tensors)
    sharded = Path(tmp) / "sharded"
    sharded.mkdir()
    (sharded / "config.json").write_text((single / "config.json").read_text())
    names = sorted(tensors)
    halves = {"model-00001-of-00002.safetensors": names[: len(names) // 2],
              "model-00002-of-00002.safetensors": names[len(names) // 2 :]}
    weight_map = {}
    for shard, part in halves.items():
        save_file({n: tensors[n] for n in part}, str(sharded / shard), metadata={"format": "pt"})
        weight_map.update({n: shard for n in part})
    (sharded / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))

    def load() -> str:
        config, loaded = load_checkpoint(sharded)
        return f"{len(loaded)} tensors, equals single file: {Model(config, loaded).digest() == Model(cfg, tensors).digest()}"

    print("single file:", outcome(lambda: len(load_checkpoint(single)[1])))
    print("sharded:", outcome(load))
