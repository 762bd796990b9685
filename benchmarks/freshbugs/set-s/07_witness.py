"""source_tree_hash covers the *.py files of the tree itself. A symlink inside the tree that points
at a directory elsewhere (a scratch checkout, a vendored copy) is not part of the tree: the hash
is the same with and without it, and it ignores the linked files."""
import os
import tempfile
from pathlib import Path

from _w import outcome

from vtengine.provenance import source_tree_hash

with tempfile.TemporaryDirectory() as tmp:
    tree, elsewhere = Path(tmp, "tree"), Path(tmp, "elsewhere")
    (tree / "sub").mkdir(parents=True)
    elsewhere.mkdir()
    (tree / "a.py").write_text("A = 1\n")
    (tree / "sub" / "b.py").write_text("B = 2\n")
    (elsewhere / "c.py").write_text("C = 3\n")
    before = source_tree_hash(tree)
    os.symlink(elsewhere, tree / "linked")
    after = outcome(lambda: source_tree_hash(tree))
    print("hash with the link:", after[:20])
    print(f"hash unchanged by a symlink to another directory: {after == 'ok ' + before}; plain files still hashed: "
          f"{before != source_tree_hash(tree / 'sub')}")
