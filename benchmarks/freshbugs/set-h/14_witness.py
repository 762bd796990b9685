# bench's pre-check covers the 2-token warm-up: --tokens 1 with a context-filling prompt is a usage error (2)
from _w import vtengine
r = vtengine("bench", "--prompt-tokens", "1024", "--tokens", "1", "--runs", "1")
print("exit", r.returncode, "|", (r.stderr.strip().splitlines() or [""])[-1][:60])
