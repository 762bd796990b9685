"""15: -h is the short spelling of --help on every command (docs/contracts.md "Shared flags": -h, --help
on all three programs)."""
import _w

for args in (["-h"], ["score", "-h"], ["export", "--help"]):
    r = _w.cli(*args)
    print(" ".join(args), "-> exit", r.returncode, "|", _w.first_line(r.stdout or r.stderr)[:50])
r = _w.cli("generate", "-h")
print("summary: generate -h -> exit", r.returncode, "|", _w.first_line(r.stdout or r.stderr)[:40])
