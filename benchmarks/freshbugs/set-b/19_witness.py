# the source tree hash of the same engine source, copied under a plain and under a hidden directory
import shutil, tempfile
from pathlib import Path
from vtengine.provenance import package_dir, source_tree_hash

base = Path(tempfile.mkdtemp())
plain, hidden = base / "plain" / "vtengine", base / ".hidden" / "vtengine"
for target in (plain, hidden):
    shutil.copytree(package_dir(), target, ignore=shutil.ignore_patterns("__pycache__"))
print("same hash:", source_tree_hash(plain) == source_tree_hash(hidden))
print("empty-tree hash under hidden dir:", source_tree_hash(hidden) == source_tree_hash(base / "nothing"))
shutil.rmtree(base)
