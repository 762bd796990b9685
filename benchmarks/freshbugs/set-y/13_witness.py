"""13: VT_CACHE_DIR is shared by every checkout that runs vtengine on the machine (a second clone, a
vtbisect worktree per candidate, an installed release): each engine version keys its own
vt-tiny-<key>.npz there and must find it again on its next start. The witness copies the engine package,
edits a generator source in the copy (another version, another key), then loads vt-tiny alternately
from this tree and from the copy, two rounds, in one fresh cache directory, and reports whether each
version's cache file was still there when it started again."""
import shutil
from pathlib import Path

import vtengine

import _w

work = Path(_w.tmpdir())
other = work / "other"
shutil.copytree(Path(vtengine.__file__).parent, other / "vtengine", ignore=shutil.ignore_patterns("__pycache__"))
with open(other / "vtengine" / "numerics.py", "a") as handle:
    handle.write("# another checkout\n")
cache = work / "cache"
load = "from vtengine.model import load_model; import sys; load_model('vt-tiny', __import__('pathlib').Path(sys.argv[1]))"
trees = {"this": None, "other": str(other)}
seen: dict[str, set[str]] = {"this": set(), "other": set()}
found = []
for round_ in (1, 2):
    for label, pythonpath in trees.items():
        before = {p.name for p in cache.glob("*.npz")} if cache.exists() else set()
        if round_ == 2:
            found.append(bool(seen[label] & before))
        env = {"PYTHONPATH": pythonpath} if pythonpath else {}
        run = _w.subprocess.run([_w.PY, "-c", load, str(cache)], capture_output=True, text=True,
                                env=_w.child_env(env), cwd=str(work), timeout=300)
        assert run.returncode == 0, run.stderr[-300:]
        seen[label] |= {p.name for p in cache.glob("*.npz")} - before
print("cache files at the end:", len(list(cache.glob("*.npz"))))
print("round 2 found its own cache file (this, other):", found)
print("summary:", found, len(list(cache.glob("*.npz"))))
