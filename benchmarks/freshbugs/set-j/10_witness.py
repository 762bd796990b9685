# a damaged vt-tiny cache file is regenerated on the next load: is the file on disk repaired too?
import tempfile
from pathlib import Path

import numpy as np

from vtengine.model import load_model

cache = Path(tempfile.mkdtemp())
first = load_model("vt-tiny", cache_dir=cache)
[npz] = list(cache.glob("*.npz"))
npz.write_bytes(b"not a zip archive")  # e.g. a disk-full write by an older version, or a bad copy
second = load_model("vt-tiny", cache_dir=cache)
try:
    with np.load(npz) as stored:
        readable = len(stored.files) > 0
except Exception:  # noqa: BLE001
    readable = False
print("same model:", first.digest() == second.digest(), "cache file repaired:", readable, "size>1k:", npz.stat().st_size > 1024)
