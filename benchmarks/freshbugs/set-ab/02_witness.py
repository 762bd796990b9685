"""02 provenance.py: source_tree_hash over a tree holding an empty __init__.py (an ordinary package)."""
import os
from pathlib import Path
from _w import outcome, tmpdir
from vtengine.provenance import source_tree_hash

root = Path(tmpdir()) / "tree"
(root / "pkg").mkdir(parents=True)
(root / "pkg" / "__init__.py").write_bytes(b"")
(root / "main.py").write_text("print('hi')\n")
print(f"source_tree_hash(tree with empty pkg/__init__.py): {outcome(lambda: source_tree_hash(root))}")
