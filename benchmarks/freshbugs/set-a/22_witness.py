# SIGTERM during a long command ends it with exit 143 (128 + SIGTERM); SIGINT with 130
import os, signal, subprocess, sys, time

for sig in (signal.SIGTERM, signal.SIGINT):
    p = subprocess.Popen([sys.executable, "-m", "vtengine", "bench", "--tokens", "100000", "--runs", "1"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(6)
    p.send_signal(sig)
    _, err = p.communicate(timeout=60)
    print(sig.name, "exit", p.returncode, "|", err.strip().splitlines()[-1] if err.strip() else "")
