"""The engine imported through a symlinked source root (a common way to point PYTHONPATH at a
checkout): source_info() must pass its mixed-imports check and report the real tree."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from vtengine.provenance import package_dir

source_root = package_dir().parent  # the engine tree under test
with tempfile.TemporaryDirectory() as tmp:
    link = Path(tmp) / "engine-link"
    link.symlink_to(source_root, target_is_directory=True)
    code = ("import vtengine.engine, vtengine.cli\n"
            "from vtengine.provenance import source_info\n"
            "try:\n    info = source_info(); print('ok', info['source_root'] == %r)\n"
            "except Exception as e:\n    print(type(e).__name__, str(e)[:70])\n") % str(source_root)
    env = {**os.environ, "PYTHONPATH": str(link)}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp)
    print("source_info() via a symlinked PYTHONPATH:", (r.stdout.strip() or r.stderr.strip().splitlines()[-1]).replace(tmp, "<tmp>"))
