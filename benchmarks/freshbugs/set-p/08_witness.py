"""08: the vt-tiny disk cache is keyed by config, generator version and sources, so a second process
loads the file the first one wrote. Two processes (PYTHONHASHSEED fixed to 1 and 2, as two runs of a
program get different hash seeds) load vt-tiny from one fresh cache dir: prints the cache files left
and whether both processes got the same model."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

code = ("import sys; from pathlib import Path; from vtengine.model import load_model; "
        "print(load_model('vt-tiny', Path(sys.argv[1])).digest())")
with tempfile.TemporaryDirectory() as cache:
    digests = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run([sys.executable, "-c", code, cache], capture_output=True, text=True, env=env, check=True)
        digests.append(run.stdout.strip())
    files = sorted(p.suffix for p in Path(cache).iterdir())
    print(f"cache files after two processes: {len(files)} {files}; same model: {digests[0] == digests[1]}")
