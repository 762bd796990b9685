"""vtbisect: automated first-bad-commit bisection in isolated worktrees, parallel, cached,
flake-aware, finding masked culprits and writing an evidence record.

This package lives in the folder ``bisect/`` but is never importable as ``bisect``: the folder is a
source root, not a package (see pyproject.toml and tests/test_layout.py)."""

from __future__ import annotations

from vtgate import __version__

__all__ = ["__version__"]
