"""Loading a sharded checkpoint gives the same result in every process (whatever PYTHONHASHSEED is)."""
import subprocess
import sys
import tempfile
from pathlib import Path

from safetensors.numpy import save_file
import json

from _w import small_config
from vtengine.checkpoint import config_to_hf
from vtengine.model import generate_tensors

cfg = small_config()
tensors = generate_tensors(cfg)
with tempfile.TemporaryDirectory() as tmp:
    d = Path(tmp, "ckpt")
    d.mkdir()
    (d / "config.json").write_text(json.dumps(config_to_hf(cfg)))
    names = sorted(tensors)
    weight_map = {}
    for i in range(4):
        shard = f"model-{i + 1:05d}-of-00004.safetensors"
        part = {n: tensors[n] for n in names[i::4]}
        save_file(part, d / shard, metadata={"format": "pt"})
        weight_map.update({n: shard for n in part})
    (d / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    code = ("import sys; from vtengine.checkpoint import load_checkpoint; "
            "print(','.join(load_checkpoint(sys.argv[1])[1]))")
    orders = set()
    for seed in range(3):
        import os
        env = dict(os.environ, PYTHONHASHSEED=str(seed))
        out = subprocess.run([sys.executable, "-c", code, str(d)], capture_output=True, text=True, env=env)
        orders.add(out.stdout.strip() or out.stderr[-100:])
    print("distinct tensor orders over 3 hash seeds:", len(orders))
