"""03: the text of CheckpointErrors: a missing checkpoint directory, and a directory without config.json
(load_checkpoint), as str(error) shows them and as `vtengine score --model DIR` reports them."""
import shutil
import tempfile
from pathlib import Path

from _w import cli, last_line, outcome
from vtengine.checkpoint import load_checkpoint

print("missing directory:", outcome(lambda: load_checkpoint("/nonexistent-vt-checkpoint")))
d = Path(tempfile.mkdtemp())
try:
    r = cli("score", "--ids", "1,2,3", "--model", str(d))
    print("cli, no config.json: exit", r.returncode, "|", last_line(r.stderr)[:70])
finally:
    shutil.rmtree(d)
