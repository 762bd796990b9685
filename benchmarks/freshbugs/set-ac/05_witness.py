"""05: `score --ids ... --eps 100`: every margin is below 100, so the summary must count them all."""
from _w import cli, last_line

ids = "256,72,101,108,108,111,44,32,119,111,114,108,100"
r = cli("score", "--ids", ids, "--eps", "100")
print("exit", r.returncode, "|", last_line(r.stderr))
