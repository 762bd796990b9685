"""source_tree_hash of the same package tree in two places, one below a dot-directory (as in
~/.local/lib/..., a .venv, or a .tox env): the hash covers the tree's own relative paths only."""
import shutil
import tempfile
from pathlib import Path

from vtengine.provenance import source_tree_hash

root = Path(tempfile.mkdtemp(prefix="setm07-"))
try:
    trees = [root / "plain" / "pkg", root / ".venv" / "lib" / "pkg"]
    for t in trees:
        (t / "sub").mkdir(parents=True)
        (t / "__init__.py").write_text("x = 1\n")
        (t / "sub" / "mod.py").write_text("y = 2\n")
        (t / ".hidden").mkdir()
        (t / ".hidden" / "skip.py").write_text("z = 3\n")
    a, b = (source_tree_hash(t) for t in trees)
    empty = root / "empty"
    empty.mkdir()
    print("same tree, plain vs below .venv: hashes equal", a == b, "| below .venv equals an empty tree",
          b == source_tree_hash(empty))
finally:
    shutil.rmtree(root)
