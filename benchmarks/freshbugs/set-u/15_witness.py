"""15: `--json PATH` into a directory that does not exist: exit 2 with one line naming the path and why it
cannot be written (the OS's reason, e.g. "No such file or directory")."""
from _w import cli, last_line

r = cli("score", "--ids", "256,72,105,33", "--json", "/nonexistent-vt-dir/out.json")
print("score --json into a missing directory: exit", r.returncode, "|", last_line(r.stderr))
