# a SIGTERM that the parent ignored (nohup-style) stays ignored: `vtengine bench` runs to the end
import os, signal, subprocess, sys
code = """
import os, signal, threading
from vtengine.cli import main
threading.Timer(1.5, lambda: os.kill(os.getpid(), signal.SIGTERM)).start()
main(["bench", "--tokens", "500", "--runs", "3"])
"""
def ignore_term():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
env = {**os.environ, "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1"}
run = subprocess.run([sys.executable, "-c", code], env=env, preexec_fn=ignore_term, capture_output=True, text=True, timeout=120)
print("exit code with SIGTERM ignored by the parent:", run.returncode)
