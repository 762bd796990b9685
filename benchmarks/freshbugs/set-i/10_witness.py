"""10: source_tree_hash covers every *.py below the directory, subpackages included."""
import tempfile
from pathlib import Path

from vtengine.provenance import source_tree_hash

with tempfile.TemporaryDirectory() as tmp:
    a, b = Path(tmp) / "a", Path(tmp) / "b"
    for root, body in ((a, "x = 1\n"), (b, "x = 2\n")):
        (root / "kernels").mkdir(parents=True)
        (root / "__init__.py").write_text("")
        (root / "kernels" / "gemv.py").write_text(body)
    print("trees with different kernels/gemv.py hash differently:", source_tree_hash(a) != source_tree_hash(b))
