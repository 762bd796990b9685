"""Choice knobs spelled in upper case (VT_ACT_DTYPE=F32, VT_DEQUANT_CACHE_POLICY=PIN)."""
from _w import outcome

from vtengine.knobs import Knobs, scoped_env

with scoped_env({"VT_ACT_DTYPE": "F32", "VT_DEQUANT_CACHE_POLICY": "PIN"}):
    print("from_env:", outcome(lambda: (Knobs.from_env().act_dtype, Knobs.from_env().dequant_cache_policy)))
