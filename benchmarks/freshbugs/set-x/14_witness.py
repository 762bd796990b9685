"""14: the CLI's commands are the documented five (docs/engine.md, "CLI"): generate, score, bench, arms,
export. `vtengine arms` prints the registry and `vtengine arms --json -` writes it to stdout; the command
list in `vtengine --help` names exactly those five."""
import json
import re

import _w

r = _w.cli("arms", "--json", "-")
try:
    selected = json.loads(r.stdout)["selected"]
except ValueError:
    selected = None
print("vtengine arms --json -: exit", r.returncode, "| selected", selected)
if r.returncode:
    print("stderr:", _w.first_line(r.stderr), "|", _w.last_line(r.stderr))
h = _w.cli("--help")
commands = re.findall(r"^\s{2}([a-z][a-z-]*)\s{2,}", h.stdout.split("Commands:")[-1], flags=re.M)
print("commands in --help:", commands)
print("summary: arms exit", r.returncode, "| commands", commands)
