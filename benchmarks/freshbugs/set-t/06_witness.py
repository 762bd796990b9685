"""06: source_tree_hash of a small tree, and of the same tree with an editor backup / merge leftover
(model.py~, model.py.orig) beside its sources: *.py files only are hashed (docs/contracts.md section 2)."""
import shutil
import tempfile
from pathlib import Path

from vtengine.provenance import source_tree_hash

base = Path(tempfile.mkdtemp())
try:
    tree = base / "pkg"
    (tree / "kernels").mkdir(parents=True)
    (tree / "__init__.py").write_text("")
    (tree / "model.py").write_text("X = 1\n")
    (tree / "kernels" / "gemv.py").write_text("Y = 2\n")
    clean = source_tree_hash(tree)
    (tree / "model.py~").write_text("X = 0\n")
    (tree / "kernels" / "gemv.py.orig").write_text("Y = 0\n")
    print("hash unchanged by model.py~ and gemv.py.orig:", source_tree_hash(tree) == clean)
finally:
    shutil.rmtree(base)
