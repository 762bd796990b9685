"""The two ways a check can go wrong that are not a red gate: a suite that cannot be read
(``SuiteError``, exit 2) and a gate that could not be judged (``GateError``, status ``error``)."""

from __future__ import annotations

from typing import Literal

# artifact: the observation ran other derived artifacts (weights) than the golden was blessed with;
# noisy: a perf gate found the host too busy to time on; inconclusive: its interval straddles the threshold
ErrorKind = Literal["probe", "timeout", "stale", "config", "golden", "artifact", "noisy", "inconclusive"]


class SuiteError(Exception):
    """The suite file (or the command line selecting from it) is wrong. The message names the file,
    the line where known, the gate, and the fix."""


class GateError(Exception):
    """One gate could not be judged: never green, never red. ``kind`` is the report's ``error_kind``
    (docs/contracts.md section 4), which vtbisect maps to skip (probe, timeout) or abort (the rest)."""

    def __init__(self, message: str, kind: ErrorKind) -> None:
        super().__init__(message)
        self.message = message
        self.kind: ErrorKind = kind
