"""02: `vtengine arms` with stderr captured (not a terminal, as in CI or any subprocess)."""
from _w import cli, last_line

r = cli("arms")
print("exit", r.returncode, "|", last_line(r.stderr)[:32])
