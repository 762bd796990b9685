"""12: computing the engine's provenance (source_info / source_tree_hash, which every observation's meta
carries) must not change the process's working directory: a caller's relative paths (an output file
'out.json', a checkpoint directory) must still resolve where the caller is. Prints whether cwd is
unchanged and where a relative 'out.json' would now be written."""
import os
import tempfile
from pathlib import Path

from vtengine.provenance import source_info

with tempfile.TemporaryDirectory() as work:
    os.chdir(work)
    source_info()
    target = Path("out.json").resolve()
    where = "the caller's directory" if target.parent == Path(work).resolve() else f"{target.parent.name}/"
    unchanged = Path.cwd() == Path(work).resolve()
    os.chdir("/")
    print(f"cwd unchanged: {unchanged}; a relative out.json resolves into {where}")
