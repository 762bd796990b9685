"""15: source_tree_hash of a tree holding a .py file that cannot be read (here a symlink to
/proc/self/mem, which reads as EIO even for root; a file without read permission, or on a failing
disk, behaves the same for an ordinary user): is that reported, or is the file silently left out?"""
import os
import tempfile
from pathlib import Path

from _w import outcome
from vtengine.provenance import source_tree_hash

with tempfile.TemporaryDirectory() as tmp:
    good = Path(tmp) / "good"
    good.mkdir()
    (good / "a.py").write_text("A = 1\n")
    (good / "b.py").write_text("B = 2\n")
    bad = Path(tmp) / "bad"
    bad.mkdir()
    (bad / "a.py").write_text("A = 1\n")
    os.symlink("/proc/self/mem", bad / "b.py")
    reference = source_tree_hash(good)
    only_a = Path(tmp) / "only-a"
    only_a.mkdir()
    (only_a / "a.py").write_text("A = 1\n")
    result = outcome(lambda: source_tree_hash(bad))
    verdict = "equals the tree without b.py" if result == f"ok {source_tree_hash(only_a)}" else result
    print("readable tree:", reference[:16])
    print("tree with an unreadable b.py:", verdict)
