# CLI: vtengine score --prompt/--reference (text path) on a small checkpoint.
import sys; sys.path.insert(0, __file__.rsplit("/", 1)[0]); import _w
import os, shutil, subprocess, tempfile, pathlib
from vtengine.checkpoint import save_checkpoint
m = _w.small()
d = pathlib.Path(tempfile.mkdtemp(prefix="freshbugs-d-11-")) / "ck"
save_checkpoint(d, m.config, m.dequantized_tensors())
r = subprocess.run([sys.executable, "-m", "vtengine", "score", "--prompt", "hello", "--reference", " world",
                    "--model", str(d)], capture_output=True, text=True, env={**os.environ, "CI": "1"})
print("rc", r.returncode, r.stderr.strip().splitlines()[-1][:120] if r.stderr.strip() else "")
shutil.rmtree(d.parent)
