import os, stat, subprocess, sys, tempfile
with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "export")
    r = subprocess.run([sys.executable, "-m", "vtengine", "export", "vt-tiny", out], capture_output=True, text=True)
    print("exit", r.returncode, "mode", oct(stat.S_IMODE(os.stat(out).st_mode)))
