# source_tree_hash skips any path component starting with '.' or named __pycache__
import tempfile
from pathlib import Path
from vtengine.provenance import source_tree_hash

with tempfile.TemporaryDirectory() as tmp:
    root = Path(tmp)
    (root / "pkg").mkdir()
    (root / "pkg" / "a.py").write_text("x = 1\n")
    h0 = source_tree_hash(root)
    (root / ".venv" / "lib").mkdir(parents=True)
    (root / ".venv" / "lib" / "site.py").write_text("y = 2\n")
    (root / "pkg" / "__pycache__" / "deep").mkdir(parents=True)
    (root / "pkg" / "__pycache__" / "deep" / "z.py").write_text("z = 3\n")
    h1 = source_tree_hash(root)
    print(h0[:16], h1[:16], "unchanged by hidden/cache dirs:", h0 == h1)
