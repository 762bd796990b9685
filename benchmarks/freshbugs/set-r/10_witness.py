"""The vt-tiny disk cache lives in a shared, user-writable place (~/.cache/vtengine). Loading it must
read arrays only: a cache file replaced by one holding a pickled object must be treated as damaged
(regenerated), never unpickled (which runs the pickle's code)."""
import tempfile
from pathlib import Path

import numpy as np

from vtengine.model import load_model

with tempfile.TemporaryDirectory() as tmp:
    cache, marker = Path(tmp) / "cache", Path(tmp) / "payload-ran"
    digest = load_model("vt-tiny", cache_dir=cache).digest()
    (path,) = cache.glob("*.npz")

    class Payload:
        def __reduce__(self):
            return (exec, (f"open({str(marker)!r}, 'w').close()",))

    with np.load(path) as stored:
        arrays = {k: stored[k] for k in stored.files}
    arrays["model.norm.weight"] = np.array([Payload()], dtype=object)
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)
    again = load_model("vt-tiny", cache_dir=cache).digest()
    print("same model after the planted cache file:", again == digest)
    print("planted pickle executed on load:", marker.exists())
