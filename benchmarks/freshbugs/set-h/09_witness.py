# the vt-tiny cache file is written atomically: a write that fails part-way (file-size limit) leaves no file
import os, resource, subprocess, sys, tempfile
from pathlib import Path
code = "from vtengine.model import load_model; m = load_model('vt-tiny'); print(m.config.name)"
def limit():
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))  # 1 MB; Python ignores SIGXFSZ
with tempfile.TemporaryDirectory() as tmp:
    env = {**os.environ, "VT_CACHE_DIR": tmp, "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.run([sys.executable, "-c", code], env=env, preexec_fn=limit, capture_output=True, text=True)
    files = sorted(p.name for p in Path(tmp).iterdir())
    print("rc", run.returncode, "| npz files left:", sum(f.endswith(".npz") for f in files),
          "| tmp files left:", sum(f.endswith(".tmp") for f in files))
