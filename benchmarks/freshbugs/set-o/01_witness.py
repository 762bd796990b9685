"""source_tree_hash must tell apart trees whose files differ only in which subdirectory they live in."""
import tempfile
from pathlib import Path

from vtengine.provenance import source_tree_hash

with tempfile.TemporaryDirectory() as tmp:
    a, b = Path(tmp, "a"), Path(tmp, "b")
    for root, sub in ((a, "kernels"), (b, "legacy")):
        (root / sub).mkdir(parents=True)
        (root / "__init__.py").write_text("")
        (root / sub / "gemv.py").write_text("X = 1\n")
    print("same hash for different trees:", source_tree_hash(a) == source_tree_hash(b))
