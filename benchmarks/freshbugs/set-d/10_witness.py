import os, sys; sys.path.insert(0, __file__.rsplit("/", 1)[0]); import _w
from vtengine.knobs import Knobs, scoped_env
os.environ["VT_KV_BLOCK_SIZE"] = "8"
with scoped_env({"VT_KV_BLOCK_SIZE": "4"}):
    inside = Knobs.from_env().kv_block_size
print("inside", inside, "after", os.environ.get("VT_KV_BLOCK_SIZE"), Knobs.from_env().kv_block_size)
