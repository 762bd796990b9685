"""05: `vtengine score --ids` and `vtengine generate` (exit code and last stderr line), and `vtengine arms`
(exit code only: its text says what this host's BLAS does)."""
from _w import cli, last_line


def show(*args):
    r = cli(*args)
    return f"exit {r.returncode} | {last_line(r.stderr)[:70]}"


print("arms --json -: exit", cli("arms", "--json", "-").returncode)
print("generate --prompt hi --tokens 3:", show("generate", "--prompt", "hi", "--tokens", "3"))
print("score --ids 256,72,105,33:", show("score", "--ids", "256,72,105,33"))
