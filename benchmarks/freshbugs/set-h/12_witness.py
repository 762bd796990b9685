# child_env(values): this process's environment with `values` set (values win)
import os, subprocess, sys
from vtengine.knobs import child_env
os.environ["VT_KV_BLOCK_SIZE"] = "16"
env = child_env({"VT_KV_BLOCK_SIZE": "4", "NO_COLOR": "1"})
out = subprocess.run([sys.executable, "-c", "from vtengine.knobs import Knobs; print(Knobs.from_env().kv_block_size)"],
                     env=env, capture_output=True, text=True).stdout.strip()
print("child_env VT_KV_BLOCK_SIZE:", env["VT_KV_BLOCK_SIZE"], "| child's Knobs.kv_block_size:", out)
