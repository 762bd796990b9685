"""12: a small model written as 2 safetensors shards (the first half of its tensors in shard 1, the rest in
shard 2) with model.safetensors.index.json, once with the weight_map grouped by shard and once sorted by
tensor name, as transformers' save_pretrained writes it (lm_head.weight, in shard 2, then sorts first)."""
import json
import shutil
import tempfile
from pathlib import Path

from safetensors.numpy import save_file

from _w import outcome, small_tensors
from vtengine.checkpoint import config_to_hf
from vtengine.model import hf_names, load_model

cfg, tensors = small_tensors()
names = hf_names(cfg)
shards = {"model-00001-of-00002.safetensors": names[: len(names) // 2],
          "model-00002-of-00002.safetensors": names[len(names) // 2 :]}
base = Path(tempfile.mkdtemp())
try:
    for label, sort_keys in (("grouped by shard", False), ("sorted by name", True)):
        d = base / label.replace(" ", "-")
        d.mkdir()
        (d / "config.json").write_text(json.dumps(config_to_hf(cfg)))
        weight_map = {}
        for shard, members in shards.items():
            save_file({n: tensors[n] for n in members}, str(d / shard), metadata={"format": "pt"})
            weight_map.update({n: shard for n in members})
        index = {"metadata": {"total_size": 0}, "weight_map": weight_map}
        (d / "model.safetensors.index.json").write_text(json.dumps(index, indent=2, sort_keys=sort_keys))
        print(f"index {label}:", outcome(lambda: f"loaded, {len(load_model(str(d)).weights)} tensors"))
finally:
    shutil.rmtree(base)
