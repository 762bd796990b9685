"""12: the vt-tiny disk cache is keyed by the config, the generator version and the generator's source
files (docs/engine.md), i.e. by what decides the arrays: the same engine source in another directory
(a second checkout, a vtbisect worktree, an installed copy) finds the cache file the first one wrote
instead of generating vt-tiny again, and the model it loads is the same."""
import os
import shutil
import subprocess
from pathlib import Path

import _w
import vtengine
from vtengine.model import load_model

cache = Path(_w.tmpdir())
first = load_model("vt-tiny", cache_dir=cache).digest()
print("first load: cache files", len(list(cache.glob("*.npz"))))
copy_root = Path(_w.tmpdir())
shutil.copytree(Path(vtengine.__file__).parent, copy_root / "vtengine", copy_function=shutil.copyfile,
                ignore=shutil.ignore_patterns("__pycache__"))
code = ("import sys, vtengine; from pathlib import Path; from vtengine.model import load_model; "
        "assert vtengine.__file__.startswith(sys.argv[1]), vtengine.__file__; "
        "print(load_model('vt-tiny', cache_dir=Path(sys.argv[2])).digest())")
r = subprocess.run([_w.PY, "-c", code, str(copy_root), str(cache)], capture_output=True, text=True,
                   env=_w.child_env({"PYTHONPATH": str(copy_root)}), stdin=subprocess.DEVNULL, timeout=300)
print("same source in another directory: exit", r.returncode, "| same model", r.stdout.strip() == first)
files = sorted(p.name.split("-")[-1] for p in cache.glob("*.npz"))
print("cache files after both:", len(files))
print("summary: cache files", len(files), "| same model", r.stdout.strip() == first)
