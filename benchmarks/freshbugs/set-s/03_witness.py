"""A host program that runs the CLI in-process (`vtengine.cli.main(argv)`, argv given) with
`--json -` gets the JSON on its stdout and can go on printing afterwards: the CLI writes to the
host's stdout, it does not own it."""
import json

from _w import py

HOST = r'''
import sys
from vtengine.cli import main
try:
    main(["score", "--ids", "256,72,105,33", "--json", "-"])
except SystemExit as leaving:
    code = leaving.code
print("HOST-AFTER exit", int(code), flush=True)
'''
run = py(HOST)
out = run.stdout
json_part = out.split("HOST-AFTER")[0]
try:
    keys = sorted(json.loads(json_part))[:4]
except ValueError:
    keys = "not JSON"
after = [line for line in out.splitlines() if line.startswith("HOST-AFTER")]
errors = [line for line in run.stderr.splitlines() if "Error" in line][-1:]
print("json keys:", keys)
print(f"host process: exit {run.returncode}, line after main(): {after}, error: {errors}")
