"""15: `python -m vtengine` installs its SIGINT/SIGTERM handlers before anything but the standard
library is imported (vtengine/__main__.py; docs/contracts.md: a signal while the program still imports
typer, rich and NumPy is noted, never a traceback). Importing the package on the way to __main__ must
therefore import no third-party module: the handlers must be in place before the first one (typer, rich,
NumPy, ...) is imported."""
import subprocess

import _w

probe = r"""
import signal, sys
seen = {}
class Watch:
    def find_spec(self, name, path=None, target=None):
        if name in ("numpy", "typer", "rich", "ml_dtypes", "safetensors") and not seen:
            seen[name] = getattr(signal.getsignal(signal.SIGINT), "__module__", None)
        return None
sys.meta_path.insert(0, Watch())
import vtengine
heavy = sorted(m for m in ("numpy", "typer", "rich", "ml_dtypes", "safetensors") if m in sys.modules)
import vtengine.__main__ as entry
sys.argv = ["vtengine", "--version"]
try:
    entry.run()
except SystemExit:
    pass
print(heavy, "|", *seen.items())
"""
r = subprocess.run([_w.PY, "-c", probe], capture_output=True, text=True, env=_w.child_env(),
                   stdin=subprocess.DEVNULL, timeout=300)
heavy, handler = r.stdout.strip().splitlines()[-1].split(" | ") if r.stdout.strip() else ("?", "?")
print("third-party modules after `import vtengine`:", heavy)
print("first third-party import and the SIGINT handler's module then:", handler)
print("summary: imported by the package", heavy, "| first heavy import (module, handler):", handler)
