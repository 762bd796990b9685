"""09: vt-tiny in a fresh cache directory: first load (generates and caches), second load (from the cache),
then the cache file is damaged (truncated) and vt-tiny is loaded again: the documented behaviour is to
regenerate it."""
import shutil
import tempfile
import warnings
from pathlib import Path

from _w import outcome
from vtengine.model import load_model

warnings.simplefilter("ignore")
cache = Path(tempfile.mkdtemp())
try:
    first = load_model("vt-tiny", cache).digest()
    print("second load, same digest:", outcome(lambda: load_model("vt-tiny", cache).digest() == first))
    for f in cache.glob("*.npz"):
        f.write_bytes(f.read_bytes()[:1000])
    print("load over a damaged cache file, same digest:",
          outcome(lambda: load_model("vt-tiny", cache).digest() == first))
finally:
    shutil.rmtree(cache)
