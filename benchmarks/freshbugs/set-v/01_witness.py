"""01: source_tree_hash of a small tree against the formula of docs/contracts.md section 2, computed here
independently (sha256 over relpath utf-8 + NUL + the file's raw sha256 digest, sorted by relative path)."""
import hashlib
import shutil
import tempfile
from pathlib import Path

from vtengine.provenance import source_tree_hash

root = Path(tempfile.mkdtemp())
try:
    (root / "pkg" / "kernels").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "model.py").write_text("WEIGHTS = 1\n")
    (root / "pkg" / "kernels" / "gemv.py").write_text("def gemv(x, w):\n    return x @ w\n")
    tree = root / "pkg"
    expected = hashlib.sha256()
    for rel in sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*.py")):
        expected.update(rel.encode("utf-8") + b"\0" + hashlib.sha256((tree / rel).read_bytes()).digest())
    got = source_tree_hash(tree)
    print("hash has 64 hex chars:", len(got) == 64 and all(c in "0123456789abcdef" for c in got))
    print("source_tree_hash matches the documented formula:", got == expected.hexdigest())
finally:
    shutil.rmtree(root)
