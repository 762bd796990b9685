"""`vtengine arms --json -` writes the registry JSON to stdout ('-' = stdout, as every --json takes it)."""
import json
import os
import tempfile

from _w import cli

with tempfile.TemporaryDirectory() as cwd:
    run = cli("arms", "--json", "-", cwd=cwd)
    try:
        selected = json.loads(run.stdout)["selected"]
    except ValueError:
        selected = None
    print(f"exit {run.returncode} | stdout JSON selected: {selected} | files in cwd: {sorted(os.listdir(cwd))}")
