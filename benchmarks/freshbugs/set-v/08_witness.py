"""08: knobs.inherited_environment(), what a child process started now receives, in a process whose PATH holds
no Python (a minimal container, a service with a bare PATH; this interpreter is run by absolute path)."""
import os
import tempfile

from _w import outcome
from vtengine.knobs import inherited_environment

empty = tempfile.mkdtemp()
os.environ["PATH"] = empty
os.environ["VT_SETV_MARK"] = "1"
print("child sees VT_SETV_MARK:", outcome(lambda: inherited_environment().get("VT_SETV_MARK")))
os.rmdir(empty)
