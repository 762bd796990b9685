import os, subprocess, sys, tempfile
with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "export")
    cmd = [sys.executable, "-m", "vtengine", "export", "vt-tiny", out]
    first = subprocess.run(cmd, capture_output=True).returncode
    second = subprocess.run(cmd, capture_output=True).returncode  # the directory exists now
    print("first exit", first, "second exit", second)
