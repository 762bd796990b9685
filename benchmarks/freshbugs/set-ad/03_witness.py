"""03: the CLI's human lines on stderr are plain text (docs: bad input is one line `error: ...`);
a script greps them. A usage error and a generate summary, stderr captured."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _w import cli  # noqa: E402

bad = cli("generate", "--prompt", "hi", "--tokens", "0")
good = cli("generate", "--prompt", "hi", "--tokens", "2")
lines = [line for line in bad.stderr.splitlines() if line.strip()]
print(f"usage error: exit {bad.returncode}, lines {len(lines)}, starts 'error:' {lines[0].startswith('error:') if lines else None}; "
      f"generate: exit {good.returncode}, first line starts with the prompt {good.stderr.startswith('hi')}")
