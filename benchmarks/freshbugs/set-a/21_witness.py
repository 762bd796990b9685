# a bad VT_* knob value is a usage error: exit 2 with the knob named, not an internal error (3)
import os, subprocess, sys

for cmd in (["arms"], ["generate", "--prompt", "hi", "--tokens", "2"]):
    env = {**os.environ, "VT_CPU_THREADS": "many"}
    r = subprocess.run([sys.executable, "-m", "vtengine", *cmd], env=env, capture_output=True, text=True)
    last = [l for l in r.stderr.strip().splitlines() if l.strip()][-1:] or [""]
    print(cmd[0], "exit", r.returncode, "|", last[0][:120])
