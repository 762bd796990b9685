"""11: exporting is deterministic: the same model saved twice (save_checkpoint, `vtengine export`)
gives byte-identical files, so a checkpoint's digest identifies its content; config.json holds exactly
the keys config_to_hf writes (plus quantization_config for fp8)."""
import json
import os
import time
from pathlib import Path

import _w
from vtengine.checkpoint import config_to_hf, save_checkpoint

cfg, tensors = _w.small_tensors()
dirs = []
for i in range(2):
    d = os.path.join(_w.tmpdir(), f"ckpt{i}")
    save_checkpoint(d, cfg, tensors)
    dirs.append(Path(d))
    time.sleep(0.01)
same = {name: (dirs[0] / name).read_bytes() == (dirs[1] / name).read_bytes() for name in ("config.json", "model.safetensors")}
print("save_checkpoint twice, byte-identical:", same)
extra = sorted(set(json.loads((dirs[0] / "config.json").read_text())) - set(config_to_hf(cfg)))
print("config.json keys beyond config_to_hf:", extra)
work = _w.tmpdir()
for name in ("a", "b"):
    _w.cli("export", "vt-tiny", name, cwd=work)
export_same = (Path(work, "a", "config.json").read_bytes() == Path(work, "b", "config.json").read_bytes())
print("vtengine export twice, config.json identical:", export_same)
print("summary: identical", same["config.json"], export_same, "| extra keys", extra)
