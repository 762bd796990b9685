"""05: `--json -` writes each object's fields in the order the command builds them (tokens, margins,
... for an observation; `schema` first for bench/arms), which readers of the files see. The key order
of `vtengine score --json -`."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _w import cli  # noqa: E402

run = cli("score", "--ids", "256,72,105,33", "--json", "-")
doc = json.loads(run.stdout)
print(f"exit {run.returncode}, top-level keys in order: {list(doc)[:4]}, meta keys: {list(doc.get('meta', {}))[:3]}")
