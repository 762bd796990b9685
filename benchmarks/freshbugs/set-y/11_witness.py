"""11: vtengine runs on the Python the project supports (this venv: 3.11). Linear splits a long batch of
rows into chunks so the [M, K, N] product stays under 8 MB; on vt-tiny (gate_up: K 256, N 1536) a
chunk is 5 rows, so any prefill or score of more than 5 tokens takes the chunked path, while a decode
step (one row) and short prompts never do. The witness generates from a 3-token prompt, scores 40
tokens in-process, and runs `vtengine score --ids` with 12 ids."""
import sys

import _w
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import load_model

print("python", ".".join(map(str, sys.version_info[:2])))
engine = Engine(load_model("vt-tiny"), Knobs())
short = _w.outcome(lambda: engine.generate([256, 72, 105], 4).tokens)
print("generate from 3 tokens:", short)
long = _w.outcome(lambda: len(engine.score([256] + [(7 * i + 3) % 256 for i in range(39)]).tokens))
print("score of 40 tokens:", long)
run = _w.cli("score", "--ids", ",".join(str(40 + i) for i in range(12)))
print("vtengine score --ids (12 ids): exit", run.returncode, "|", _w.last_line(run.stderr)[:80])
print("summary:", short.split(" ")[0], long.split(" ")[0], run.returncode)
