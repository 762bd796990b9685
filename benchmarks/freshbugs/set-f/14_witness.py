"""A damaged vt-tiny cache file must be regenerated, not fatal."""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w

import tempfile
from pathlib import Path
from vtengine.model import load_model
with tempfile.TemporaryDirectory() as tmp:
    first = load_model("vt-tiny", Path(tmp)).digest()
    files = sorted(Path(tmp).glob("vt-tiny-*.npz"))
    files[0].write_bytes(b"this is not an npz archive")
    try:
        second = load_model("vt-tiny", Path(tmp)).digest()
        print("reloaded", len(files), second == first)
    except Exception as error:  # noqa: BLE001
        print("failed", len(files), type(error).__name__)
