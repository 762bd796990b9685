"""knobs.restore_environment(saved) makes this process's environment exactly `saved` again: a child
process started afterwards must not see a variable set in between."""
import os
import subprocess
import sys

from vtengine.knobs import environment, restore_environment

saved = environment()
os.environ["VT_SETN_PROBE"] = "1"
restore_environment(saved)
child = subprocess.run([sys.executable, "-c", "import os; print(os.environ.get('VT_SETN_PROBE'))"],
                       capture_output=True, text=True).stdout.strip()
print("here:", os.environ.get("VT_SETN_PROBE"), "| child process:", child)
