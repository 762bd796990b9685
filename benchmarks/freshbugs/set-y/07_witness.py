"""07: source_tree_hash(dir) is the hash of the files below dir as they are now (docs/contracts.md
section 2); the stale guard relies on it changing when the tree is edited while a long-lived process
(a probe worker, a notebook) keeps running. The witness hashes a small tree, edits a file, adds one and
removes one, and hashes again after each step in the same process."""
import os
from pathlib import Path

import _w
from vtengine.provenance import source_tree_hash

root = Path(_w.tmpdir()) / "pkg"
root.mkdir()
(root / "a.py").write_text("x = 1\n")
(root / "b.py").write_text("y = 2\n")
hashes = [source_tree_hash(root)]
(root / "a.py").write_text("x = 10\n")
hashes.append(source_tree_hash(root))
(root / "c.py").write_text("z = 3\n")
hashes.append(source_tree_hash(root))
os.remove(root / "b.py")
hashes.append(source_tree_hash(str(root)))
hashes.append(source_tree_hash(root))
changed = [hashes[i] != hashes[i - 1] for i in (1, 2, 3)]
print("hash changed after edit / add / remove:", changed)
print("str and Path spellings agree:", hashes[3] == hashes[4])
print("summary:", changed, hashes[3] == hashes[4])
