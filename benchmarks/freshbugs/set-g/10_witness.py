import os, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w
from vtengine.checkpoint import save_checkpoint
cfg, tensors = _w.small(vocab_size=61)  # smaller than the byte tokenizer's 259 ids
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "ids61")
    save_checkpoint(path, cfg, tensors)
    r = subprocess.run([sys.executable, "-m", "vtengine", "generate", "--model", path, "--prompt", "hi",
                        "--tokens", "2"], capture_output=True, text=True)
    print("exit", r.returncode)
