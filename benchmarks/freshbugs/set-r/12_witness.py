"""source_tree_hash (docs/contracts.md section 2): sha256 over (relpath, NUL, sha256(file bytes)) of
every .py file, sorted by relative path. Two trees whose a.py differ by one trailing NUL byte must hash
differently, and the hash must equal the formula computed independently."""
import hashlib
import tempfile
from pathlib import Path

from vtengine.provenance import source_tree_hash


def formula(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py"), key=lambda p: p.relative_to(root).as_posix()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


with tempfile.TemporaryDirectory() as tmp:
    a, b = Path(tmp) / "a", Path(tmp) / "b"
    for root, extra in ((a, b""), (b, b"\0")):
        (root / "pkg").mkdir(parents=True)
        (root / "pkg" / "__init__.py").write_bytes(b"")
        (root / "pkg" / "model.py").write_bytes(b"WEIGHTS = 1\n" + extra)
    ha, hb = source_tree_hash(a), source_tree_hash(b)
    print("hash", ha[:16], hb[:16])
    print("matches the documented formula:", ha == formula(a), "| trees differing by one byte hash differently:", ha != hb)
