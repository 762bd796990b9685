# source_tree_hash of the same package installed under a dot-directory (e.g. ~/.local, a .venv).
import sys; sys.path.insert(0, __file__.rsplit("/", 1)[0]); import _w
import shutil, tempfile, pathlib
import vtengine
from vtengine.provenance import source_tree_hash
src = pathlib.Path(vtengine.__file__).parent
root = pathlib.Path(tempfile.mkdtemp(prefix="freshbugs-d-14-"))
plain, dotted = root / "site" / "vtengine", root / ".local" / "vtengine"
for dst in (plain, dotted):
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
print("same hash under dot-dir:", source_tree_hash(plain) == source_tree_hash(dotted))
shutil.rmtree(root)
