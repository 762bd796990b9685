"""vt-tiny loaded from its disk cache must equal the freshly generated model."""
import tempfile
from pathlib import Path

from vtengine.model import load_model

with tempfile.TemporaryDirectory() as tmp:
    miss = load_model("vt-tiny", Path(tmp)).digest()
    hit = load_model("vt-tiny", Path(tmp)).digest()
    print("cache hit digest equals generated:", miss == hit, hit[:16])
