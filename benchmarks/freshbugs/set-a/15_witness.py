# load_model("vt-tiny", cache_dir=X) must cache the generated weights under X, not under VT_CACHE_DIR
import os, tempfile
from pathlib import Path
from vtengine.model import load_model

with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
    os.environ["VT_CACHE_DIR"] = a
    m = load_model("vt-tiny", cache_dir=Path(b))
    print("VT_CACHE_DIR files", len(list(Path(a).glob("*.npz"))))
    print("cache_dir files", len(list(Path(b).glob("*.npz"))))
    print("digest", m.digest()[:16])
