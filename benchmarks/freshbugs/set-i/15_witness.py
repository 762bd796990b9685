"""15: `vtengine arms --json -` names each arm's knob as the environment spells it, and runs."""
import json
import subprocess
import sys

run = subprocess.run([sys.executable, "-m", "vtengine", "arms", "--json", "-"], capture_output=True, text=True)
knobs = sorted(a["knob"] for a in json.loads(run.stdout)["arms"] if a["knob"]) if run.returncode == 0 else []
print("registry knobs:", knobs)
print("exit", run.returncode, "| internal error:", "internal error" in run.stderr)
