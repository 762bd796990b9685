"""CLI usage error (score without --reference): documented exit code 2."""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w

import subprocess
r = subprocess.run([sys.executable, "-m", "vtengine", "score", "--prompt", "hi"], capture_output=True, text=True)
print("exit", r.returncode)
