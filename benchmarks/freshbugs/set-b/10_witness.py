# knobs.scoped_env must put the environment back after the block
import os
from vtengine.knobs import Knobs, scoped_env

os.environ.pop("VT_PROFILE", None)
os.environ["VT_KV_BLOCK_SIZE"] = "16"
with scoped_env({"VT_PROFILE": "1", "VT_KV_BLOCK_SIZE": "8"}):
    inside = Knobs.from_env()
after = Knobs.from_env()
print("inside", inside.profile, inside.kv_block_size)
print("after", after.profile, after.kv_block_size, "VT_PROFILE" in os.environ)
