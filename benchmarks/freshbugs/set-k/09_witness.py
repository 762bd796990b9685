# source_root is the directory to put on PYTHONPATH (the parent of the vtengine package)

from pathlib import Path
from vtengine.provenance import source_info

info = source_info()
root = info["source_root"]
print("vtengine importable from source_root:", (Path(root) / "vtengine" / "__init__.py").is_file(), Path(root).name)
