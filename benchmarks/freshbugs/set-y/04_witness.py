"""04: Ctrl-C ends any vtengine command with "interrupted: vtengine <command>" and exit 130, SIGTERM the
same with exit 143 (docs/engine.md, docs/contracts.md). The witness makes `vtengine score --json FIFO`
block in a deterministic place: after its summary line it opens a named pipe nobody reads. It then
sends SIGINT (one run) or SIGTERM (another) and reports the exit code and whether the interrupted line
was printed."""
import os
import signal
import subprocess
import time

import _w


def interrupted_run(sig: int) -> tuple[int, bool]:
    fifo = os.path.join(_w.tmpdir(), "out.json")
    os.mkfifo(fifo)
    proc = subprocess.Popen([_w.PY, "-m", "vtengine", "score", "--ids", "256,72,105,33", "--json", fifo],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=_w.child_env())
    seen = []
    while True:  # the summary is printed just before the JSON target is opened
        line = proc.stderr.readline()
        seen.append(line)
        if not line or "predict the next token" in line:
            break
    time.sleep(1.0)  # now blocked in open() on the FIFO
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    return proc.returncode, "interrupted: vtengine score" in "".join(seen) + err


results = {}
for name in ("SIGINT", "SIGTERM"):
    code, line = interrupted_run(getattr(signal, name))
    print(f"{name} while blocked on the --json target: exit {code}, 'interrupted: vtengine score' printed: {line}")
    results[name] = (code, line)
print("summary:", results)
