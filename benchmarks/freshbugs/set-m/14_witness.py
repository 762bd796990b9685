"""load_model('vt-tiny') twice with a fresh cache directory: the first call writes the cache file, the
second reads it. Afterwards the directory holds exactly that one (non-empty) .npz."""
import shutil
import tempfile
from pathlib import Path

from vtengine.model import load_model

d = Path(tempfile.mkdtemp(prefix="setm14-"))
try:
    a = load_model("vt-tiny", d).digest()
    b = load_model("vt-tiny", d).digest()
    files = sorted(d.iterdir())
    print(f"same model {a == b} | files in cache dir: {len(files)} | empty files: "
          f"{sum(p.stat().st_size == 0 for p in files)} | *.tmp*: {sum('.tmp' in p.name for p in files)}")
finally:
    shutil.rmtree(d)
