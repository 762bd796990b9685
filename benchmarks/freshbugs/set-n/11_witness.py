"""provenance.check_single_tree: a vtengine module loaded from another directory (a stale copy on
sys.path) must be reported as mixed imports."""
import sys
import tempfile
import types
from pathlib import Path

from _w import outcome

from vtengine.provenance import check_single_tree

print("one tree:", outcome(check_single_tree))
with tempfile.TemporaryDirectory() as other:
    stray = Path(other) / "stray.py"
    stray.write_text("X = 1\n")
    module = types.ModuleType("vtengine.stray")
    module.__file__ = str(stray)
    sys.modules["vtengine.stray"] = module
    print("with a stray module:", outcome(check_single_tree).split(" is ")[0])
