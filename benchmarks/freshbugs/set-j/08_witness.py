# source_tree_hash of a tree with kernels.py, kernels-old.py and kernels/gemv.py, against docs/contracts.md's
# formula: sha256 over (relpath, NUL, sha256(bytes)) sorted by POSIX relative path (str sort)
import hashlib
import tempfile
from pathlib import Path

from vtengine.provenance import source_tree_hash

root = Path(tempfile.mkdtemp())
files = {"kernels.py": b"a = 1\n", "kernels-old.py": b"a = 0\n", "kernels/gemv.py": b"b = 2\n", "__init__.py": b""}
for rel, data in files.items():
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_bytes(data)
expected = hashlib.sha256()
for rel in sorted(files):
    expected.update(rel.encode() + b"\0" + hashlib.sha256(files[rel]).digest())
got = source_tree_hash(root)
print("hash", got[:16], "matches the documented formula:", got == expected.hexdigest())
