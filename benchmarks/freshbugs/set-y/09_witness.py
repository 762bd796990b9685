"""09: the vt-tiny cache file is written once, on a cache miss; later loads only read it ("so a probe
subprocess loads it in milliseconds"). Reading must not rewrite it: every process start would write
megabytes, and a file an administrator made read-only (a shared, pinned cache) would be replaced. The
witness loads vt-tiny three times from a fresh cache directory and checks the cache file's inode and
mode (the file is made read-only after the first load)."""
import os
from pathlib import Path

import _w
from vtengine.model import load_model

cache = Path(_w.tmpdir()) / "cache"
first = load_model("vt-tiny", cache).digest()
(path,) = list(cache.glob("*.npz"))
os.chmod(path, 0o444)
before = os.stat(path)
digests = [load_model("vt-tiny", cache).digest()]
after = os.stat(path)  # one hit: a replacement would be a file that coexisted with the old one
digests.append(load_model("vt-tiny", cache).digest())
mode = os.stat(path).st_mode & 0o777
files = sorted(p.suffix for p in cache.iterdir())
print("same model from the cache:", all(d == first for d in digests))
print("cache files:", files)
print("first cache hit left the file alone (same inode):", after.st_ino == before.st_ino)
print("mode after two cache hits (set to 0o444 after the first load):", oct(mode))
print("summary:", after.st_ino == before.st_ino, oct(mode))
