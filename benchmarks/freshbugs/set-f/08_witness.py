"""scoped_env must leave a variable that was unset before the block unset after it."""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w

from vtengine.knobs import scoped_env
os.environ.pop("VT_SETF_WITNESS", None)
os.environ.pop("VT_KV_BLOCK_SIZE", None)
with scoped_env({"VT_SETF_WITNESS": "1", "VT_KV_BLOCK_SIZE": "8"}):
    inside = os.environ.get("VT_SETF_WITNESS")
print("inside", inside, "after", os.environ.get("VT_SETF_WITNESS"), os.environ.get("VT_KV_BLOCK_SIZE"))
