"""15: vt-tiny is generated on first use and then loaded from its cache file (docs/engine.md: one
.npz per cache key, arrays under their tensor names). Fresh cache dir, two loads: the file's member
names, whether the second load served the same file, and the models' digests."""
import os
import sys
import zipfile

sys.path.insert(0, os.path.dirname(__file__))
from _w import tmpdir  # noqa: E402

from vtengine.model import load_model  # noqa: E402

from pathlib import Path  # noqa: E402

cache = Path(tmpdir())
first = load_model("vt-tiny", cache)
files = sorted(cache.glob("*.npz"))
inode = files[0].stat().st_ino
second = load_model("vt-tiny", cache)
files2 = sorted(cache.glob("*.npz"))
with zipfile.ZipFile(files2[0]) as z:
    names = sorted(z.namelist())
print(f"cache files {len(files2)}, members {len(names)} first {names[0]}, second load kept the file "
      f"{files2[0].stat().st_ino == inode}, same model {first.digest() == second.digest()}")
