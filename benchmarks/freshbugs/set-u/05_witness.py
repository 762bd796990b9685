"""05: vt-tiny loaded with a cache directory that does not exist yet, and with one that already exists (an
empty directory the user made, or one left by another version): how many cache files each holds after the
load (the model is cached on first use either way)."""
import shutil
import tempfile
import warnings
from pathlib import Path

from vtengine.model import load_model

warnings.simplefilter("ignore")
base = Path(tempfile.mkdtemp())
try:
    fresh = base / "new" / "cache"
    existing = base / "existing"
    existing.mkdir()
    load_model("vt-tiny", fresh)
    print("cache dir created by the load: npz files", len(list(fresh.glob("*.npz"))))
    load_model("vt-tiny", existing)
    print("cache dir that already existed: npz files", len(list(existing.glob("*.npz"))))
finally:
    shutil.rmtree(base)
