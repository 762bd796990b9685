import os, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w
from vtengine.checkpoint import save_checkpoint
cfg, tensors = _w.small(vocab_size=61)  # a token-id model: smaller vocab than the byte tokenizer
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "ids61")
    save_checkpoint(path, cfg, tensors)
    r = subprocess.run([sys.executable, "-m", "vtengine", "bench", "--model", path, "--prompt-tokens", "16",
                        "--tokens", "4", "--runs", "1", "--json", "-"], capture_output=True, text=True)
    print("exit", r.returncode)
