"""13 checkpoint.py: `vtengine export vt-tiny DIR` into an existing empty directory (allowed: only a
non-empty one is refused)."""
from pathlib import Path
from _w import cli, last_line, tmpdir

target = Path(tmpdir()) / "ckpt"
target.mkdir()
r = cli("export", "vt-tiny", str(target))
print(f"export into an empty dir: exit {r.returncode}, config.json written: {(target / 'config.json').is_file()}")
