# vtengine score with --ids and --prompt together (no --reference): a usage error (exit 2)
import os, subprocess, sys

env = {**os.environ, "CI": "1", "VT_CACHE_DIR": "/tmp/freshbugs-b-cache"}
out = subprocess.run([sys.executable, "-m", "vtengine", "score", "--ids", "256,1,2,3", "--prompt", "hi"],
                     env=env, capture_output=True, text=True)
print("exit", out.returncode)
print(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "")
