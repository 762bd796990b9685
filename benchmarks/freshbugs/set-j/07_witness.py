# knobs.unset() given a generator of names: afterwards every name is as it was before
import os

from vtengine.knobs import Knobs, unset

os.environ["VT_PROFILE"] = "1"
os.environ["VT_KV_BLOCK_SIZE"] = "8"
with unset(name for name in ("VT_PROFILE", "VT_KV_BLOCK_SIZE")):
    inside = Knobs.from_env()
after = Knobs.from_env()
print("inside:", inside.profile, inside.kv_block_size, "after:", after.profile, after.kv_block_size,
      os.environ.get("VT_PROFILE"), os.environ.get("VT_KV_BLOCK_SIZE"))
