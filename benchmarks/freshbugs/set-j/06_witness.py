# `vtengine export vt-tiny DIR` where DIR's parent directories do not exist yet
import tempfile
from pathlib import Path

from _w import cli

target = Path(tempfile.mkdtemp()) / "runs" / "2026-12" / "vt-tiny"
result = cli("export", "vt-tiny", str(target))
print("exit", result.returncode, "config.json written:", (target / "config.json").is_file())
