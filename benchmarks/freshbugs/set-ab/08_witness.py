"""08 exitcodes.py: the exit codes are the documented ones (docs/contracts.md#exit-codes)."""
from vtengine.exitcodes import ExitCode

print(", ".join(f"{c.name}={int(c)}" for c in ExitCode))
