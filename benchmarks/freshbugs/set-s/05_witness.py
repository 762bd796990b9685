"""vt-tiny from a fresh cache directory, then again (now served from the .npz cache): the second
load gives the same model (same digest) as the first."""
import tempfile
from pathlib import Path

from _w import outcome

from vtengine.model import load_model

with tempfile.TemporaryDirectory() as tmp:
    cache = Path(tmp)
    first = load_model("vt-tiny", cache_dir=cache).digest()
    print("cache files after the first load:", len(list(cache.glob("*.npz"))))
    second = outcome(lambda: load_model("vt-tiny", cache_dir=cache).digest() == first)
    print(f"second load (from the cache): same digest {second}")
