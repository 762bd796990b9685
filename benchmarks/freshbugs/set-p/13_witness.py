"""13: vtengine.cli.main(argv) called in-process (a host program, a notebook, a test runner) returns
control to its caller by SystemExit and leaves the host process alone. A child host calls
main(["--version"]), catches SystemExit, works on for 7 s and then reports: prints the host's exit
code and its last line of output."""
import subprocess
import sys

host = """
import time
from vtengine.cli import main
try:
    main(["--version"])
except SystemExit as leaving:
    print("main returned exit code", leaving.code, flush=True)
time.sleep(7)
print("host finished its own work", flush=True)
"""
run = subprocess.run([sys.executable, "-c", host], capture_output=True, text=True, timeout=60)
print(f"host exit {run.returncode}; last line: {run.stdout.strip().splitlines()[-1]}")
