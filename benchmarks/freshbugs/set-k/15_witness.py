# vt-tiny loaded twice from a fresh cache dir: generated the first time, read from the .npz the second
import shutil, tempfile
from pathlib import Path
from vtengine.model import load_model

tmp = Path(tempfile.mkdtemp())
try:
    first = load_model("vt-tiny", cache_dir=tmp)
    second = load_model("vt-tiny", cache_dir=tmp)
    print("cache files", len(list(tmp.glob("*.npz"))), "same digest", first.digest() == second.digest(),
          "second", second.digest()[:16])
finally:
    shutil.rmtree(tmp)
