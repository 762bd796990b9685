"""01: load vt-tiny into three fresh cache directories (each load generates and writes the .npz cache
file) and count this process's open file descriptors before and after."""
import os
import tempfile
from pathlib import Path

from vtengine.model import load_model


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


before = open_fds()
digests = set()
with tempfile.TemporaryDirectory() as tmp:
    for i in range(3):
        cache = Path(tmp) / f"cache-{i}"
        digests.add(load_model("vt-tiny", cache).digest()[:12])
        files = sorted(p.name.split("-")[0] for p in cache.iterdir())
    print("cache files in the last dir:", files, "digests:", sorted(digests))
print(f"file descriptors left open by 3 cache writes: {open_fds() - before}")
