"""03: source_tree_hash of a two-file tree, run in a child interpreter with a 20 s bound."""
import os
import subprocess

from _w import PY, child_env, tmpdir

root = tmpdir()
os.makedirs(os.path.join(root, "pkg"))
with open(os.path.join(root, "pkg", "a.py"), "w") as f:
    f.write("x = 1\n")
with open(os.path.join(root, "b.py"), "w") as f:
    f.write("y = 2\n")
code = ("import sys; from vtengine.provenance import source_tree_hash; "
        "print(source_tree_hash(sys.argv[1]))")
try:
    r = subprocess.run([PY, "-c", code, root], capture_output=True, text=True, env=child_env(),
                       stdin=subprocess.DEVNULL, timeout=20)
    print("exit", r.returncode, r.stdout.strip()[:16])
except subprocess.TimeoutExpired:
    print("no result within 20 s")
