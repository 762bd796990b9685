"""13: the mixed-imports check with one vtengine module loaded from another tree (a module object registered
as vtengine.zz_other whose file lies in /srv/other-checkout): check_single_tree() must raise
MixedImportsError naming the module and where it came from."""
import sys
import types

from _w import outcome
from vtengine.provenance import MixedImportsError, check_single_tree

print("one tree:", outcome(check_single_tree))
stray = types.ModuleType("vtengine.zz_other")
stray.__file__ = "/srv/other-checkout/vtengine/zz_other.py"
sys.modules["vtengine.zz_other"] = stray
try:
    check_single_tree()
    print("mixed: no error")
except MixedImportsError as error:
    text = str(error)
    print("mixed: names 'vtengine.zz_other from /srv/other-checkout/vtengine/zz_other.py':",
          "vtengine.zz_other from /srv/other-checkout/vtengine/zz_other.py" in text, "|", text.split(" but ")[1][:40])
finally:
    del sys.modules["vtengine.zz_other"]
