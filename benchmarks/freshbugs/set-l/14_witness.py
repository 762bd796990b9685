"""load_model("vt-tiny") with the cache directory and the temporary directory on different
filesystems (TMPDIR on a tmpfs such as /dev/shm, VT_CACHE_DIR on disk): the generated model must be
cached. Run in a fresh subprocess so tempfile reads this TMPDIR."""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

cache_parent = Path(os.environ.get("VT_CACHE_DIR", "/tmp/freshbugs-l-cache")).parent
candidates = ["/dev/shm", "/run/user/%d" % os.getuid(), "/run/shm", "/var/tmp", "/tmp"]
other = next((c for c in candidates if os.path.isdir(c) and os.access(c, os.W_OK)
              and os.stat(c).st_dev != os.stat(cache_parent).st_dev), None)
if other is None:
    print("no writable directory on another filesystem than", cache_parent, "- cannot show this bug here")
    raise SystemExit(0)
tmpdir = tempfile.mkdtemp(prefix="vt-l14-tmp-", dir=other)
cache = tempfile.mkdtemp(prefix="vt-l14-cache-", dir=cache_parent)
try:
    env = {**os.environ, "TMPDIR": tmpdir, "VT_CACHE_DIR": cache}
    code = "from vtengine.model import load_model; load_model('vt-tiny')"
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    cached = sorted(p.suffix for p in Path(cache).iterdir())
    print(f"load_model exit {r.returncode}; files in the fresh VT_CACHE_DIR (TMPDIR on another filesystem): {cached}")
finally:
    shutil.rmtree(tmpdir, ignore_errors=True)
    shutil.rmtree(cache, ignore_errors=True)
