"""01: source_tree_hash over a tree holding a directory whose name ends in .py (a package someone named
'plugins.py/', or a tool's cache dir) and a dangling symlink 'old.py'. docs/contracts.md section 2 hashes
every *regular file* ending in .py, so both are skipped; the hash must match the documented formula."""
import hashlib
import os
from pathlib import Path

import _w
from vtengine.provenance import source_tree_hash


def documented(root: Path) -> str:
    files = []
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            p = Path(dirpath) / name
            rel = p.relative_to(root)
            if not name.endswith(".py") or not p.is_file() or p.is_symlink() and not p.exists():
                continue
            if any(part.startswith(".") or part == "__pycache__" for part in rel.parts):
                continue
            files.append((rel.as_posix(), p))
    d = hashlib.sha256()
    for rel, p in sorted(files):
        d.update(rel.encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    return d.hexdigest()


root = Path(_w.tmpdir()) / "tree"
(root / "plugins.py").mkdir(parents=True)
(root / "a.py").write_text("A = 1\n")
(root / "plugins.py" / "b.py").write_text("B = 2\n")
print("directory named plugins.py:", _w.outcome(lambda: source_tree_hash(root) == documented(root)))
os.symlink(root / "removed-long-ago.py", root / "old.py")
print("plus a dangling old.py symlink:", _w.outcome(lambda: source_tree_hash(root) == documented(root)))
