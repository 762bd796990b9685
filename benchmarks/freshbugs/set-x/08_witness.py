"""08: load_model takes a checkpoint directory, and a directory is often held as a pathlib.Path
(tempfile, pytest's tmp_path, Path.home() / ...): load_model(Path(dir)) must read it like
load_model(str(dir)), and so must `vtengine score --model DIR`."""
import os
from pathlib import Path

import _w
from vtengine.checkpoint import save_checkpoint
from vtengine.model import load_model

cfg, tensors = _w.small_tensors()
ckpt = os.path.join(_w.tmpdir(), "ckpt")
save_checkpoint(ckpt, cfg, tensors)
as_str = load_model(ckpt).digest()
print("load_model(str):", _w.outcome(lambda: load_model(ckpt).digest() == as_str))
print("load_model(Path):", _w.outcome(lambda: load_model(Path(ckpt)).digest() == as_str))
print("load_model(Path, quantize=True):", _w.outcome(lambda: len(load_model(Path(ckpt), quantize=True).digest())))
r = _w.cli("score", "--ids", "1,2,3,4", "--model", ckpt)
print("vtengine score --model DIR: exit", r.returncode)
print("summary: load_model(Path(dir))", _w.outcome(lambda: load_model(Path(ckpt)).digest() == as_str))
