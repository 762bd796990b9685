# check_single_tree: a vtengine module from a sibling directory whose name starts like the package's is a stray
import sys, types
from vtengine.provenance import MixedImportsError, check_single_tree, package_dir
stray = types.ModuleType("vtengine._witness_stray")
stray.__file__ = str(package_dir().parent / (package_dir().name + "_backup") / "model.py")
sys.modules["vtengine._witness_stray"] = stray
try:
    check_single_tree()
    print("no error: stray module accepted")
except MixedImportsError:
    print("MixedImportsError")
