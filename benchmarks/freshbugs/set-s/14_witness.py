"""Flag knobs: VT_PROFILE set but empty means off (ENVIRONMENT.md's default is 0), and values that
are not flag spellings ("t", "es", "n") are refused with a KnobError naming the knob."""
import os

from _w import outcome

from vtengine.knobs import Knobs

seen = {}
for raw in ("", "1", "0", "on", "off", "t", "es", "n"):
    os.environ["VT_PROFILE"] = raw
    seen[raw] = outcome(lambda: Knobs.from_env().profile).split(":")[0]
del os.environ["VT_PROFILE"]
print("VT_PROFILE ->", seen)
