# `vtengine score --ids ... --json -`: the observation must be on stdout (human output on stderr)
import json

from _w import cli

result = cli("score", "--ids", "256,72,105,33", "--json", "-")
try:
    keys = sorted(json.loads(result.stdout))[:4]
except ValueError:
    keys = None
print("exit", result.returncode, "stdout JSON keys:", keys, "stdout bytes:", len(result.stdout) > 0)
