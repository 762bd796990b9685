"""15 cli.py: main(argv) in-process with stdout redirected to a StringIO (an embedding host, a test)."""
import contextlib
import io
import json
from vtengine.cli import main

buf = io.StringIO()
err = io.StringIO()
code = None
with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
    try:
        main(["score", "--ids", "256,72,105,108", "--json", "-"])
    except SystemExit as leaving:
        code = leaving.code
try:
    keys = sorted(json.loads(buf.getvalue()))[:3]
except ValueError:
    keys = None
print(f"in-process score --json -: exit {int(code) if code is not None else None}, JSON captured: {keys is not None}")
