"""Exit codes shared by the vtgate and vtbisect CLIs (docs/contracts.md#exit-codes).

vtengine keeps a mirror of this enum (it may not import vtgate); tests/test_cli.py proves the two agree.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0  # all green (deliberate reds included)
    RED = 1  # a gate red / a culprit found where asked to fail / findings
    USAGE = 2  # usage or configuration error
    INTERNAL = 3  # internal error or a probe that could not run
    NOTHING = 5  # nothing to check
