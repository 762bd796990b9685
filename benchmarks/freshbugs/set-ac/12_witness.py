"""12: source_tree_hash of the same files under a directory whose name holds glob metacharacters
('src[v2]', as a checkout or an unpacked archive may be named) and under a plain name."""
import os
import shutil

from _w import tmpdir
from vtengine.provenance import source_tree_hash

base = tmpdir()
plain = os.path.join(base, "srcv2")
os.makedirs(os.path.join(plain, "pkg"))
for rel, text in (("pkg/__init__.py", "x = 1\n"), ("mod.py", "y = 2\n")):
    with open(os.path.join(plain, rel), "w") as f:
        f.write(text)
odd = os.path.join(base, "src[v2]")
shutil.copytree(plain, odd)
print("same hash under src[v2] as under srcv2:", source_tree_hash(odd) == source_tree_hash(plain))
