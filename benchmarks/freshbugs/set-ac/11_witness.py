"""11: `vtengine bench` summary names the selected arm of each kernel (here both 'default')."""
import re

from _w import cli

r = cli("bench", "--prompt-tokens", "2", "--tokens", "2", "--runs", "1", env={"VT_PROFILE": "0"})
m = re.search(r"arms (.*)$", r.stderr, re.M)
print("exit", r.returncode, "| arms", m.group(1).strip() if m else None)
