"""`vtengine export` onto an existing (non-empty) checkpoint in a non-interactive run (stdin is
/dev/null, as in CI or a script): a usage error, exit 2, naming the directory; not an "interrupted"
exit 130. The first export is kept either way."""
import tempfile
from pathlib import Path

from _w import cli, scrub

with tempfile.TemporaryDirectory() as tmp:
    target = str(Path(tmp) / "ckpt")
    first = cli("export", "vt-tiny", target)
    second = cli("export", "vt-tiny", target)
    last = (second.stderr.strip().splitlines() or [""])[-1]
    print(f"first export: exit {first.returncode}")
    print(f"second export: exit {second.returncode}, stderr {scrub(last)[:90]!r}, checkpoint kept "
          f"{(Path(target) / 'config.json').is_file()}")
