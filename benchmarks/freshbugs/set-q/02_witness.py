"""02: `vtengine score --ids ... --json -` with a fresh VT_CACHE_DIR (the first run on a machine, or
after an upgrade): is stdout still exactly one JSON document?"""
import json
import tempfile

from _w import cli

with tempfile.TemporaryDirectory() as cache:
    runs = []
    for _ in range(2):  # the first run generates vt-tiny, the second reads the cache
        r = cli("score", "--ids", "256,72,105,33,10", "--json", "-", env={"VT_CACHE_DIR": cache})
        try:
            doc = json.loads(r.stdout)
            runs.append(f"rc {r.returncode} json ok ({len(doc['tokens'])} tokens)")
        except ValueError as error:
            runs.append(f"rc {r.returncode} stdout not JSON: {type(error).__name__}")
print("first run:", runs[0], "| cached run:", runs[1])
