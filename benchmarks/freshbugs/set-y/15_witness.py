"""15: bad input is one line on stderr and exit 2 (docs/engine.md); scripts and CI rely on the exit
status, not on the text. The witness exports vt-tiny twice to the same directory (the second is refused:
the directory already exists) and once below a regular file (the directory cannot be created), and
reports each run's exit code and first stderr line."""
import os

import _w

work = _w.tmpdir()
target = os.path.join(work, "vt-tiny-ckpt")
blocker = os.path.join(work, "a-file")
open(blocker, "w").close()
codes = []
for label, directory in (("first export", target), ("second export, same dir", target),
                         ("export below a regular file", os.path.join(blocker, "ckpt"))):
    run = _w.cli("export", "vt-tiny", directory)
    print(f"{label}: exit {run.returncode} | {_w.first_line(run.stderr)[:90]}")
    codes.append(run.returncode)
print("summary: exit codes", codes)
