# `vtengine score --json FILE` run twice into the same file: the file holds one JSON document
import json, os, shutil, subprocess, sys, tempfile

tmp = tempfile.mkdtemp()
try:
    out = os.path.join(tmp, "obs.json")
    codes = [subprocess.run([sys.executable, "-m", "vtengine", "score", "--ids", "256,72,105,33", "--json", out],
                            capture_output=True, text=True).returncode for _ in range(2)]
    try:
        with open(out) as f:
            doc = json.load(f)
        print("exit codes", codes, "json ok, keys", sorted(doc)[:4])
    except ValueError as e:
        print("exit codes", codes, "json broken:", type(e).__name__, str(e).split(":")[0])
finally:
    shutil.rmtree(tmp)
