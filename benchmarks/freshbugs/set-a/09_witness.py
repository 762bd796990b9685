# scoped_env must leave the environment as it found it (a knob set only inside the block is removed)
import os
from vtengine.knobs import Knobs, scoped_env

os.environ.pop("VT_PROFILE", None)
os.environ["VT_KV_BLOCK_SIZE"] = "8"
with scoped_env({"VT_PROFILE": "1", "VT_KV_BLOCK_SIZE": "32"}):
    inside = Knobs.from_env()
after = Knobs.from_env()
print("inside", inside.profile, inside.kv_block_size)
print("after", after.profile, after.kv_block_size, "VT_PROFILE" in os.environ)
