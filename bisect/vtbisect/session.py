"""One bisection session's resources and their cleanup on every exit path.

``Session`` opens the cache folder, the worktree pool and the runner's executor, installs a SIGTERM
handler that turns into KeyboardInterrupt (so ``finally`` runs on ``kill`` as on Ctrl-C), and on the
way out kills running child process trees, removes the worktrees and runs ``git worktree prune``."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from vtbisect.judges import kill_children
from vtbisect.worktrees import WorktreePool


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP behave like Ctrl-C for the duration (main thread only). A signal that already
    has a Python handler (the CLI's, ``vtgate.cli.exits``, which notes SIGTERM for exit 143) keeps it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, _raise_interrupt) for sig in (signal.SIGTERM, signal.SIGHUP)
                if signal.getsignal(sig) in (signal.SIG_DFL, None)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextmanager
def worktree_session(repo: Path, cache_dir: Path, slots: int) -> Iterator[WorktreePool]:
    """A worktree pool that is always cleaned up: children killed, worktrees removed, pruned."""
    pool = WorktreePool(repo, cache_dir, slots)
    try:
        yield pool
    finally:
        # A second Ctrl-C while cleaning up must not leave worktrees behind.
        old = signal.signal(signal.SIGINT, signal.SIG_IGN) if _main() else None
        try:
            kill_children()
            pool.close()
        finally:
            if old is not None:
                signal.signal(signal.SIGINT, old)


def _main() -> bool:
    return threading.current_thread() is threading.main_thread()
