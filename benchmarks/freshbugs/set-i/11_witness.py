"""11: VT_DEQUANT_CACHE_MB=1.5 is not an integer: refused (KnobError), not silently cut to 1."""
import os

from vtengine.knobs import KnobError, Knobs

os.environ["VT_DEQUANT_CACHE_MB"] = "1.5"
try:
    print("accepted: dequant_cache_mb =", Knobs.from_env().dequant_cache_mb)
except KnobError as error:
    print("KnobError:", error)
