"""05 knobs.py: inherited_environment() from an interpreter whose path contains a space."""
import os
import sys
from pathlib import Path
import vtengine
from _w import last_line, py, tmpdir

home = Path(tmpdir()) / "my tools" / "bin"
home.mkdir(parents=True)
exe = home / "python"
exe.symlink_to(os.path.realpath(sys.executable))
engine_root = str(Path(vtengine.__file__).resolve().parent.parent)
code = ("from vtengine.knobs import inherited_environment\n"
        "try:\n    env = inherited_environment(); print('ok', env.get('SETAB_MARK'))\n"
        "except Exception as e:\n    print(type(e).__name__)\n")
r = py(code, env={"PYTHONPATH": engine_root, "SETAB_MARK": "seen"}, exe=str(exe))
print(f"inherited_environment() under '<tmp>/my tools/bin/python': {last_line(r.stdout) or last_line(r.stderr)}")
