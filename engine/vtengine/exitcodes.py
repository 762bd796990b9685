"""Exit codes of the vtengine CLI: a mirror of vtgate.exitcodes.ExitCode (docs/contracts.md#exit-codes).

vtengine imports neither vtgate nor vtbisect, so the enum is repeated here; tests/test_cli.py proves
the two agree name for name and value for value.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    RED = 1
    USAGE = 2
    INTERNAL = 3
    NOTHING = 5
