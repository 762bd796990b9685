"""14: save_checkpoint is atomic: "a failure leaves no checkpoint, or the previous one when overwrite
replaces it" (its docstring). The witness saves a small checkpoint, then, in a child process whose file
size limit (RLIMIT_FSIZE, SIGXFSZ ignored) is smaller than the new weights file, overwrites it with a
larger model: the write fails. It reports the error, whether the previous checkpoint is still there
and loads, and what is left in the parent directory."""
import os

import _w

parent = os.path.join(_w.tmpdir(), "runs")
code = f"""
import os, resource, signal
import _w
from vtengine.checkpoint import load_checkpoint, save_checkpoint
directory = os.path.join({parent!r}, "ckpt")
cfg, tensors = _w.small_tensors()
save_checkpoint(directory, cfg, tensors)
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (16_000, resource.RLIM_INFINITY))
big_cfg, big = _w.small_tensors(d_model=64, n_heads=4, n_kv_heads=2, d_ff=128)
try:
    save_checkpoint(directory, big_cfg, big, overwrite=True)
    print("overwrite: saved")
except Exception as error:  # safetensors reports the failed write as its own error type
    print("overwrite:", type(error).__name__, str(error).split(": ")[-1])
kept = _w.outcome(lambda: load_checkpoint(directory)[0].d_model)
print("previous checkpoint loads:", kept)
print("left in the parent:", sorted(name.split("-")[0] for name in os.listdir({parent!r})))
"""
run = _w.py(code, env={"PYTHONPATH": os.path.dirname(os.path.abspath(__file__))})
print(run.stdout.strip() or run.stderr[-400:])
lines = dict(line.split(": ", 1) for line in run.stdout.strip().splitlines())
print("summary:", lines.get("overwrite"), "|", lines.get("previous checkpoint loads"), "|", lines.get("left in the parent"))
