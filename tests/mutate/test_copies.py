"""The throw-away copies of one mutate run (vtgate.mutate.copies.Scratch): every copy is of the same
tree, listed once (git's view: tracked and untracked-but-not-ignored files), patched in the copy only,
and all of them go when the scratch folder closes."""

from __future__ import annotations

import subprocess
from pathlib import Path

from vtgate.mutate.copies import Scratch

DIFF = """--- a/src/kernel.py
+++ b/src/kernel.py
@@ -1 +1 @@
-SCALE = 1.0
+SCALE = 1.001
"""


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "kernel.py").write_text("SCALE = 1.0\n")
    (root / ".gitignore").write_text("*.log\n")
    (root / "run.log").write_text("ignored\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    (root / "notes.txt").write_text("untracked, not ignored\n")
    return root


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def test_every_copy_of_a_run_is_of_the_tree_listed_once_and_patched_alone(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    patch = tmp_path / "mutant.patch"
    patch.write_text(DIFF)
    with Scratch() as scratch:
        first = scratch.patched_copy(root, "m-1", patch, "mutant 1")
        (root / "late.txt").write_text("added while the run goes\n")  # not part of the tree this run copies
        second = scratch.patched_copy(root, "m-2", patch, "mutant 2")
        assert _files(first) == _files(second) == {".gitignore", "src/kernel.py", "notes.txt"}
        assert (second / "src" / "kernel.py").read_text() == "SCALE = 1.001\n"
        assert scratch.path is not None
        folder = scratch.path
    assert (root / "src" / "kernel.py").read_text() == "SCALE = 1.0\n"  # the user's tree is untouched
    assert not folder.exists()


def test_a_copy_holds_only_what_copy_names_when_it_is_set(tmp_path: Path) -> None:
    """``[mutate.code] copy``: a mutant's copy holds the files under the folders (or the files) it
    names, nothing else of the tree; the patch still applies there."""
    from vtgate.mutate.copies import selected

    root = _repo(tmp_path)
    (root / "docs").mkdir()
    (root / "docs" / "big.md").write_text("not needed by any probe\n")
    (root / "srcextra.txt").write_text("a name that only starts like src\n")
    patch = tmp_path / "mutant.patch"
    patch.write_text(DIFF)
    with Scratch(only=["src", "notes.txt"]) as scratch:
        copy = scratch.patched_copy(root, "m-1", patch, "mutant 1")
        assert _files(copy) == {"src/kernel.py", "notes.txt"}
        assert (copy / "src" / "kernel.py").read_text() == "SCALE = 1.001\n"
    assert selected(["a/b.py", "ab.py", "c.txt"], ()) == ["a/b.py", "ab.py", "c.txt"]
    assert selected(["a/b.py", "ab.py", "c.txt"], ["a/"]) == ["a/b.py"]
